package record

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"slices"
	"sync"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
)

// Sealed segments are packed. A segment no longer grows once the next
// keyframe starts, and what a full-screen program writes (the same rows
// redrawn, the same colours set again) compresses several times over:
// 48 agents writing 20 KB/s each fill 288 MB in a 5-minute ring as plain
// bytes. So the segment before a new keyframe is packed whole (its
// keyframe, its output and its events, varint-coded), with zstd, or with
// S2 if its output came as a flood (codec), and unpacked only when
// SaveLast reads it; the open segment stays plain, as the tap appends to
// it. The packed bytes start with the codec's tag, so they unpack alone.

// The codecs, the first byte of a packed segment.
const (
	packZstd = 'z' // then a zstd frame, which carries its own checksum
	packS2   = 's' // then a CRC-32C of the unpacked bytes and an S2 block, which carries none
)

// floodRate is the output rate over which a full segment is packed with
// S2. A flood (a cat of a big log, a verbose build) comes as fast as vt
// parses it, 40-70 MB/s on a shared core, and fills a segment in a few
// milliseconds: zstd's fastest level packs coloured log lines at 150
// MB/s (BenchmarkPack) and took an eighth of the server's CPU in one, S2
// packs them at 400 MB/s, for a ratio of 2.8 where zstd gets 4. What
// people watch stays far below 4 MiB/s: an agent, htop, vim or apt
// writes about 20 KB/s (ring.go), a redrawn screen tens of KB at once;
// there zstd's ratio is what keeps 48 panes of 5 minutes small, for a
// few milliseconds of CPU a second. A flood's ring is bounded by its
// bytes, not by Retain (the default 4 MiB holds some 3 s of output at
// floodRate, a fifth of a second of a 50 MB/s flood), so S2's ratio
// costs some of those seconds, not memory.
const floodRate = 4 << 20 // bytes a second

// maxUnpacked bounds what a packed segment may unpack to, with either
// codec: a segment is at most DefaultSegmentBytes of output and its
// keyframe, so more is damage, and must not be allocated.
const maxUnpacked = 64 << 20

var (
	// packer and unpacker are shared by every ring: EncodeAll and
	// DecodeAll may run concurrently. The fastest level costs a few
	// milliseconds a second for 48 busy panes; small windows keep each
	// call's own memory small: a segment is at most DefaultSegmentBytes of
	// output (and its keyframe), and the encoder keeps a history of the
	// window and a block for good, 384 KiB with this one, 1.1 MiB with 1 MiB.
	// Both are made by Warm, as a ring first packs or unpacks: a process
	// that records nothing (the attach client, ctl) holds neither.
	packer   *zstd.Encoder
	unpacker *zstd.Decoder

	castagnoli = crc32.MakeTable(crc32.Castagnoli) // in hardware on amd64 and arm64
)

// Warm makes the encoder and decoder every ring shares, once; encode and
// decode call it. They make their pools of workers at first use, so a test
// that runs rings in a testing/synctest bubble calls Warm before any
// bubble (in TestMain): made in a bubble, they would belong to it, and
// synctest refuses channels shared across bubbles.
var Warm = sync.OnceFunc(func() {
	var err error
	packer, err = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest),
		zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(DefaultSegmentBytes), zstd.WithLowerEncoderMem(true))
	if err == nil {
		unpacker, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxMemory(maxUnpacked))
	}
	if err == nil {
		_, err = unpacker.DecodeAll(packer.EncodeAll([]byte("sandmux"), nil), nil)
	}
	if err != nil {
		panic(fmt.Sprintf("record: zstd does not round-trip: %v", err)) // fixed options: a bug
	}
})

// errPacked is the error of a packed segment that does not unpack: a bug,
// as sandmux packed it itself.
var errPacked = errors.New("record: a packed segment is damaged")

// codec chooses how the segment is packed once sealed: S2 if its output
// reached the byte bound (segmentBytes) faster than floodRate over its
// span, from its keyframe to its last event, else zstd. Both halves
// matter: a segment sealed before it is full (by the time bound, Every,
// or the keyframe after a resize) is no flood's however fast its last
// burst came, and one filled over seconds (an agent printing a long
// diff) is what zstd packs best, for little CPU.
func (s *segment) codec(segmentBytes int) byte {
	if at, ok := s.lastEvent(); s.outLen() < segmentBytes || !ok || !s.flooding(at) {
		return packZstd
	}
	return packS2
}

// pack replaces the segment's keyframe, output and events with one
// packed copy of them, made with codec (packZstd or packS2). The ring's
// lock is held.
func (s *segment) pack(codec byte) {
	if s.packed != nil {
		return
	}
	data, events := s.data, s.events
	if len(s.chunks) > 0 {
		out := getScratch()
		defer putScratch(out)
		var err error
		data, events, err = s.output((*out)[:0])
		*out = data
		if err != nil {
			// A bug (sandmux packed the chunks itself): the segment is
			// packed without them, and unpack says it is damaged.
			data, events = nil, []event{{end: 1, kind: 'o'}}
		}
	}
	raw := getScratch()
	*raw = s.marshal((*raw)[:0], data, events)
	s.packed = encode(codec, *raw)
	putScratch(raw)
	s.kf, s.data, s.chunks, s.base, s.events = "", nil, nil, 0, nil
}

// unpack turns a copy of a packed segment (SaveLast's, off the ring's
// lock) back into its keyframe, output and events.
func (s *segment) unpack() error {
	raw, err := decode(s.packed)
	if err != nil {
		return err
	}
	return s.unmarshal(raw)
}

// encode packs raw with codec into a slice of its own, without slack: it
// is kept, and counted, as long as the segment is.
func encode(codec byte, raw []byte) []byte {
	buf := getScratch()
	defer putScratch(buf)
	b := (*buf)[:0]
	if codec == packS2 && len(raw) <= maxUnpacked {
		b = slices.Grow(b, 5+s2.MaxEncodedLen(len(raw)))[:5]
		b[0] = packS2
		binary.LittleEndian.PutUint32(b[1:], crc32.Checksum(raw, castagnoli))
		b = b[:5+len(s2.Encode(b[5:cap(b)], raw))] // in place: b has room for the worst case
	} else {
		Warm()
		b = packer.EncodeAll(raw, append(b, packZstd))
	}
	*buf = b
	return append(make([]byte, 0, len(b)), b...)
}

// scratch keeps the buffers pack marshals and encodes into, for every
// ring: a flood seals a segment every few milliseconds, and two fresh
// buffers of some 300 KB each time made S2's packing a third slower
// (BenchmarkPack). Buffers grown past maxScratch (a huge keyframe) are
// left to the collector.
var scratch sync.Pool // of *[]byte

const maxScratch = 4 * DefaultSegmentBytes

func getScratch() *[]byte {
	if b, ok := scratch.Get().(*[]byte); ok {
		return b
	}
	return new([]byte)
}

func putScratch(b *[]byte) {
	if cap(*b) <= maxScratch {
		scratch.Put(b)
	}
}

// decode returns the bytes packed into p, whichever codec packed them.
func decode(p []byte) ([]byte, error) { return decodeInto(nil, p) }

// decodeInto is decode into dst's array when it has room: sealing a
// chunked segment unpacks its chunks only to pack them again whole.
func decodeInto(dst, p []byte) ([]byte, error) {
	if len(p) == 0 {
		return nil, fmt.Errorf("%w: empty", errPacked)
	}
	switch p[0] {
	case packZstd:
		Warm()
		raw, err := unpacker.DecodeAll(p[1:], dst[:0])
		if err != nil {
			return nil, fmt.Errorf("%w: %w", errPacked, err)
		}
		return raw, nil
	case packS2:
		return decodeS2(dst, p[1:])
	}
	return nil, fmt.Errorf("%w: unknown codec %#x", errPacked, p[0])
}

// decodeS2 checks the block's length before it allocates it, as the
// zstd decoder its memory (maxUnpacked), and its checksum after.
func decodeS2(dst, p []byte) ([]byte, error) {
	if len(p) < 4 {
		return nil, fmt.Errorf("%w: no checksum", errPacked)
	}
	sum, block := binary.LittleEndian.Uint32(p), p[4:]
	n, err := s2.DecodedLen(block)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errPacked, err)
	}
	if n > maxUnpacked {
		return nil, fmt.Errorf("%w: %d bytes unpacked, more than %d", errPacked, n, maxUnpacked)
	}
	raw, err := s2.Decode(dst[:cap(dst)], block)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errPacked, err)
	}
	if crc32.Checksum(raw, castagnoli) != sum {
		return nil, fmt.Errorf("%w: checksum mismatch", errPacked)
	}
	return raw, nil
}

// marshal appends the segment's keyframe, output (data, the whole of it)
// and events (all of them) to raw.
func (s *segment) marshal(raw, data []byte, events []event) []byte {
	return marshalOut(raw, s.kf, data, events, s.start, 0)
}

// marshalOut appends a keyframe, output and the events in it to raw as
// varints, the times relative to at0 and each other, the ends to end0
// (where the output starts in its segment) and each other.
func marshalOut(raw []byte, kf string, data []byte, events []event, at0 int64, end0 int) []byte {
	raw = slices.Grow(raw, len(kf)+len(data)+len(events)*8+3*binary.MaxVarintLen64)
	raw = binary.AppendUvarint(raw, uint64(len(kf)))
	raw = binary.AppendUvarint(raw, uint64(len(data)))
	raw = binary.AppendUvarint(raw, uint64(len(events)))
	raw = append(raw, kf...)
	raw = append(raw, data...)
	at, end := at0, end0
	for _, e := range events {
		raw = binary.AppendVarint(raw, e.at-at)
		raw = binary.AppendUvarint(raw, uint64(e.end-end))
		raw = append(raw, e.kind)
		if e.kind == 'r' {
			raw = binary.AppendUvarint(raw, uint64(e.cols))
			raw = binary.AppendUvarint(raw, uint64(e.rows))
		}
		at, end = e.at, e.end
	}
	return raw
}

// unmarshal reads what marshal wrote into the segment; raw is kept.
func (s *segment) unmarshal(raw []byte) error {
	kf, data, events, err := unmarshalOut(raw, s.start, 0)
	if err != nil {
		return err
	}
	s.kf, s.data, s.events, s.packed = kf, data, events, nil
	return nil
}

// unmarshalOut reads what marshalOut wrote with at0 and end0; every
// event must end within the output. raw is kept.
func unmarshalOut(raw []byte, at0 int64, end0 int) (kf string, data []byte, events []event, err error) {
	r := reader{b: raw}
	nkf, ndata, nev := r.uvarint(), r.uvarint(), r.uvarint()
	if r.bad || nkf+ndata > uint64(len(r.b)) || nev > uint64(len(r.b)) {
		return "", nil, nil, errPacked
	}
	kf, data = string(r.b[:nkf]), r.b[nkf:nkf+ndata]
	r.b = r.b[nkf+ndata:]
	events = make([]event, 0, nev)
	at, end := at0, end0
	for range nev {
		at += r.varint()
		n := r.uvarint()
		if n > uint64(end0+len(data)-end) {
			return "", nil, nil, errPacked
		}
		end += int(n)
		e := event{at: at, end: end, kind: r.byte()}
		if e.kind == 'r' {
			e.cols, e.rows = int32(r.uvarint()), int32(r.uvarint())
		}
		if r.bad {
			return "", nil, nil, errPacked
		}
		events = append(events, e)
	}
	return kf, data, events, nil
}

// reader reads the varints of a packed segment; bad says one was cut.
type reader struct {
	b   []byte
	bad bool
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.bad = true
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.bad = true
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) byte() byte {
	if len(r.b) == 0 {
		r.bad = true
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}
