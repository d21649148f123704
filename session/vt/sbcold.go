package vt

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sync"
	"unsafe"

	"github.com/klauspost/compress/s2"
)

// Cold scrollback. A line that scrolled off is read again only when
// someone scrolls back, searches or reflows, yet it was held as a
// 48-byte header and an allocation of its own: some 103 bytes for a
// line of a build log, 10 MB for 48 panes' 2000 lines. All but the
// newest lines are packed in blocks of sbBlockLines and compressed with
// s2 (a block of log lines takes some 24 bytes a line). s2 is a pure
// function: packing needs no codec state, no goroutine and no memory
// between blocks. Its fast mode, not its better one: that packed 7 %
// smaller and took a quarter more of a flood's parse, where this takes
// a tenth.

// sbBlockLines is how many lines a cold block holds. The scrollback
// keeps up to twice as many unpacked (the newest), so a line is packed
// once it has been scrolled past by a block's worth of lines.
const sbBlockLines = 128

// sbBlock is sbBlockLines lines, packed (appendLine) and compressed,
// and, once a search has read them, the byte pairs of their search
// texts: a later search skips a block that lacks a pair of its query
// without unpacking it. Made as a search reads the block, not as it is
// packed: most blocks are never searched, and the pairs took a flood's
// parse a quarter of its time.
type sbBlock struct {
	packed []byte
	pairs  *blockPairs // nil until a search read the block
}

// blockPairs is a filter of the byte pairs in a block's lines: a bit
// per pair of pairHash classes, folded to 1024. A line's lineMask, 64
// bits, would fill up at 128 lines to a block; at 1024 a block of a log
// leaves enough bits clear that a query of a dozen pairs rules out the
// blocks that lack it (BenchmarkSearchAll: 15.6 ms a query, where
// reading every block took 445).
type blockPairs [16]uint64

func blockPair(a, b byte) uint { return (uint(pairHash[a])<<4 ^ uint(pairHash[b])) & 1023 }

func (p *blockPairs) add(s string) {
	for i := 1; i < len(s); i++ {
		p.set(s[i-1], s[i])
	}
}

func (p *blockPairs) set(a, b byte) {
	k := blockPair(a, b)
	p[k>>6] |= 1 << (k & 63)
}

// holds reports whether the block may hold every pair of need.
func (p *blockPairs) holds(need *blockPairs) bool {
	for i, w := range need {
		if p[i]&w != w {
			return false
		}
	}
	return true
}

// sbCache is the cold block read last, unpacked: reading a range of
// lines (a scrolled-back frame, a search, a reflow) unpacks each block
// once. start is the absolute index (scrollback.dropped counts) of its
// first line; lines is never written, so a line taken from it stays
// valid after the cache moves on.
type sbCache struct {
	start int64
	lines []sbLine
}

// Line flags in a packed block.
const (
	sbWrapped  = 1 << iota // sbLine.wrapped
	sbSpecial              // sbLine.special
	sbClusters             // clusters follow the data
)

// packBufs are the scratch blocks are packed in, shared by every
// scrollback: one of their own would hold twice a block's size each.
var packBufs = sync.Pool{New: func() any { return new([]byte) }}

// packBlock packs and compresses lines. The block holds a copy of its
// exact size: s2 writes into room for the worst case.
func packBlock(lines []sbLine) sbBlock {
	bp := packBufs.Get().(*[]byte)
	defer packBufs.Put(bp)
	buf := (*bp)[:0]
	for i := range lines {
		buf = appendLine(buf, &lines[i])
	}
	raw := len(buf)
	buf = slices.Grow(buf, s2.MaxEncodedLen(raw))
	packed := s2.Encode(buf[raw:raw+s2.MaxEncodedLen(raw)], buf[:raw])
	*bp = buf
	return sbBlock{packed: slices.Clone(packed)}
}

// pairsOf returns the pairs of cold block k, made from its lines the
// first time.
func (b *scrollback) pairsOf(k int) *blockPairs {
	if p := b.cold[k].pairs; p != nil {
		return p
	}
	p := new(blockPairs)
	for _, l := range b.block(k) {
		if l.special {
			p.add(l.findText().text)
		} else {
			p.add(l.text())
		}
	}
	b.cold[k].pairs = p
	return p
}

// appendLine appends line l, packed, to buf.
func appendLine(buf []byte, l *sbLine) []byte {
	var flags byte
	if l.wrapped {
		flags |= sbWrapped
	}
	if l.special {
		flags |= sbSpecial
	}
	cl := l.clusterList()
	if len(cl) > 0 {
		flags |= sbClusters
	}
	buf = append(buf, flags)
	buf = binary.AppendUvarint(buf, uint64(max(l.span, 0)))
	buf = binary.AppendUvarint(buf, uint64(l.tlen))
	buf = binary.AppendUvarint(buf, uint64(len(l.data)))
	buf = append(buf, l.data...)
	if len(cl) > 0 {
		buf = binary.AppendUvarint(buf, uint64(len(cl)))
		for _, c := range cl {
			buf = binary.AppendUvarint(buf, uint64(c.x))
			buf = binary.AppendUvarint(buf, uint64(len(c.text)))
			buf = append(buf, c.text...)
		}
	}
	return buf
}

// unpack returns the block's lines, fresh. The block was packed by this
// process, so a block that does not read back is a bug, not bad input.
func (blk sbBlock) unpack() []sbLine {
	raw, err := s2.Decode(nil, blk.packed)
	if err != nil {
		panic(fmt.Sprintf("vt: a scrollback block does not unpack: %v", err))
	}
	// One string for the block: its lines' data are slices of it.
	lines := make([]sbLine, 0, sbBlockLines)
	r := sbReader{p: string(raw)}
	for len(r.p) > 0 && r.err == nil {
		lines = append(lines, r.line())
	}
	if r.err != nil {
		panic(fmt.Sprintf("vt: a scrollback block does not read back: %v", r.err))
	}
	return lines
}

// sbReader reads lines off a packed block.
type sbReader struct {
	p   string
	err error
}

func (r *sbReader) uvarint() uint64 {
	var v uint64
	for i := 0; i < len(r.p) && i < binary.MaxVarintLen64; i++ {
		b := r.p[i]
		v |= uint64(b&0x7f) << (7 * i)
		if b < 0x80 {
			r.p = r.p[i+1:]
			return v
		}
	}
	r.fail(fmt.Errorf("a bad length %d bytes from the end", len(r.p)))
	return 0
}

func (r *sbReader) bytes(n uint64) string {
	if n > uint64(len(r.p)) {
		r.fail(fmt.Errorf("%d bytes past the end", n-uint64(len(r.p))))
		return ""
	}
	s := r.p[:n]
	r.p = r.p[n:]
	return s
}

func (r *sbReader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
	r.p = ""
}

func (r *sbReader) line() sbLine {
	flags := r.p[0]
	r.p = r.p[1:]
	var l sbLine
	l.wrapped, l.special = flags&sbWrapped != 0, flags&sbSpecial != 0
	l.span = int32(r.uvarint())
	l.tlen = uint32(r.uvarint())
	l.data = r.bytes(r.uvarint())
	if flags&sbClusters != 0 {
		n := r.uvarint()
		if n > uint64(len(r.p)) { // each takes two bytes at least
			r.fail(fmt.Errorf("%d clusters in %d bytes", n, len(r.p)))
			return sbLine{}
		}
		cl := make([]sbCluster, n)
		for i := range cl {
			cl[i].x = int32(r.uvarint())
			cl[i].text = r.bytes(r.uvarint())
		}
		l.clusters = &cl
	}
	if int(l.tlen) > len(l.data) {
		r.fail(fmt.Errorf("a text of %d bytes in %d", l.tlen, len(l.data)))
		return sbLine{}
	}
	return l
}

// heldBytes is what a line holds besides its header.
func (l *sbLine) heldBytes() int {
	n := len(l.data)
	if l.clusters != nil {
		n += int(unsafe.Sizeof([]sbCluster{})) + cap(*l.clusters)*int(unsafe.Sizeof(sbCluster{}))
	}
	for _, c := range l.clusterList() {
		n += len(c.text)
	}
	return n
}
