package vt

import (
	"encoding/binary"
	"unsafe"
)

// sbLine is one scrollback line, packed: its text and its runs of equal
// style share one string, the rare clusters hang off a pointer, so a line
// is a 40-byte header and one allocation (in a burst of output, a part
// of a chunk many lines share: lineArena). 48 panes' 2000 lines of a
// scrolling log held 8.4 MB of 88-byte headers besides a string and a
// runs array each, where the text is some 30 bytes and the runs a few.
type sbLine struct {
	// data is the text (a rune per cell: a cluster's first code point),
	// then the runs, each its cells then its style's id in the
	// scrollback's styles, both as uvarints (sbRuns reads them).
	data string
	// clusters are the cells holding more than one code point (nil:
	// none, as nearly always).
	clusters *[]sbCluster
	tlen     uint32 // the text's bytes at the start of data
	// span is how many cells a wrapped line took, its trailing blanks
	// (trimmed like any line's) included: the text goes on after them.
	span    int32
	wrapped bool // the line continues on the next one (auto-wrap)
	// special: text holds a wide rune's placeholder or the line has
	// clusters, so its search text differs from text (search.go).
	special bool
}

type sbCluster struct {
	x    int32
	text string
}

// sbRun is a run of cells of one style, as lines are built and read.
type sbRun struct {
	n  int32  // cells
	id uint32 // its style in the scrollback's styles
}

// text is the line's text.
func (l *sbLine) text() string { return l.data[:l.tlen] }

// clusterList is the line's clusters, by cell.
func (l *sbLine) clusterList() []sbCluster {
	if l.clusters == nil {
		return nil
	}
	return *l.clusters
}

// runs reads the line's runs in order: for it := l.runs(); it.next(); {}.
func (l *sbLine) runs() sbRuns { return sbRuns{p: l.data[l.tlen:]} }

// sbRuns walks the runs packed in a line's data.
type sbRuns struct {
	p string
	sbRun
}

// next reads the next run into it, reporting false past the last.
func (it *sbRuns) next() bool {
	if it.p == "" {
		return false
	}
	var n, id uint64
	n, it.p = uvarint(it.p)
	id, it.p = uvarint(it.p)
	it.n, it.id = int32(n), uint32(id)
	return true
}

// uvarint reads one uvarint off the front of p (written by binary.AppendUvarint,
// so well formed).
func uvarint(p string) (uint64, string) {
	var v uint64
	for i := 0; i < len(p); i++ {
		b := p[i]
		v |= uint64(b&0x7f) << (7 * i)
		if b < 0x80 {
			return v, p[i+1:]
		}
	}
	return v, ""
}

// uvarintLen is how many bytes binary.AppendUvarint writes for v.
func uvarintLen(v uint64) int {
	n := 1
	for ; v >= 0x80; v >>= 7 {
		n++
	}
	return n
}

// pack sets the line's text, runs and clusters (copied: the caller's
// buffers are its own again); its flags and mask are the caller's. With
// an arena, the data is carved from it (a burst's lines).
func (l *sbLine) pack(text []byte, runs []sbRun, clusters []sbCluster, a *lineArena) {
	l.data, l.tlen = packData(text, runs, a), uint32(len(text))
	l.clusters = nil
	if len(clusters) > 0 {
		c := append([]sbCluster(nil), clusters...)
		l.clusters = &c
	}
}

// runsLen is how many bytes runs take packed.
func runsLen(runs []sbRun) int {
	n := 0
	for _, r := range runs {
		n += uvarintLen(uint64(r.n)) + uvarintLen(uint64(r.id))
	}
	return n
}

// packData is a line's data: its text, then its runs. It is carved from
// a, or is an allocation of its own when a is nil; either way its bytes
// are never written again.
func packData[T string | []byte](text T, runs []sbRun, a *lineArena) string {
	n := len(text) + runsLen(runs)
	var d []byte
	if a != nil {
		d = a.take(n)
	} else {
		d = make([]byte, 0, n)
	}
	d = append(d, text...)
	for _, r := range runs {
		d = binary.AppendUvarint(d, uint64(r.n))
		d = binary.AppendUvarint(d, uint64(r.id))
	}
	// The string is what was written, not what n foresaw: a room too
	// small would have moved d off the arena, never cut the runs short.
	return unsafe.String(unsafe.SliceData(d), len(d))
}

// remap renames every run's style by next (compaction): the data is
// packed again, a new string, since strings a search copied share it.
// scratch is a buffer of the caller's, returned for the next line.
func (l *sbLine) remap(next func(id uint32) uint32, scratch []sbRun) []sbRun {
	scratch = scratch[:0]
	for it := l.runs(); it.next(); {
		scratch = append(scratch, sbRun{it.n, next(it.id)})
	}
	l.data = packData(l.text(), scratch, nil)
	return scratch
}

// lineArena hands out the data of a burst's lines from chunks of
// arenaChunk bytes, written once and never again: a string made from a
// part of a chunk keeps only that chunk alive. A flood's lines were an
// allocation each, most of them dropped a few slices later:
// BenchmarkWrite plain 405 -> 520 MB/s, mixed-pty-200x50 252 -> 301
// (six runs each, in turn), 1191 and 778 allocations per 64 KiB to 2
// and 1.
type lineArena struct{ buf []byte }

const arenaChunk = 32 << 10

// take returns n bytes of the arena, of capacity n.
func (a *lineArena) take(n int) []byte {
	if cap(a.buf)-len(a.buf) < n {
		a.buf = make([]byte, 0, max(arenaChunk, n))
	}
	i := len(a.buf)
	a.buf = a.buf[:i+n]
	return a.buf[i : i : i+n]
}
