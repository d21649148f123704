package record

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/klauspost/compress/zstd"
)

// Sealed segments are packed. A segment no longer grows once the next
// keyframe starts, and what a full-screen program writes (the same rows
// redrawn, the same colours set again) compresses several times over:
// 48 agents writing 20 KB/s each fill 288 MB in a 5-minute ring as plain
// bytes. So the segment before a new keyframe is packed into one zstd
// frame (its keyframe, its output and its events, varint-coded) and
// unpacked only when SaveLast reads it; the open segment stays plain, as
// the tap appends to it.

var (
	// packer and unpacker are shared by every ring: EncodeAll and
	// DecodeAll may run concurrently. The fastest level costs a few
	// milliseconds a second for 48 busy panes; small windows keep each
	// call's own memory small: a segment is at most DefaultSegmentBytes of
	// output (and its keyframe), and the encoder keeps a history of the
	// window and a block for good, 384 KiB with this one, 1.1 MiB with 1 MiB.
	packer, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest),
		zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(DefaultSegmentBytes), zstd.WithLowerEncoderMem(true))
	unpacker, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxMemory(64<<20))
)

// The encoder and decoder make their pools of workers at first use; made
// here, at start, they belong to no goroutine group a test may run the
// first ring in (testing/synctest refuses channels shared across it).
func init() {
	if _, err := unpacker.DecodeAll(packer.EncodeAll([]byte("sandmux"), nil), nil); err != nil {
		panic(fmt.Sprintf("record: zstd does not round-trip: %v", err))
	}
}

// errPacked is the error of a packed segment that does not unpack: a bug,
// as sandmux packed it itself.
var errPacked = errors.New("record: a packed segment is damaged")

// pack replaces the segment's keyframe, output and events with one
// packed copy of them. The ring's lock is held.
func (s *segment) pack() {
	if s.packed != nil {
		return
	}
	raw := make([]byte, 0, len(s.kf)+len(s.data)+len(s.events)*8+3*binary.MaxVarintLen64)
	raw = binary.AppendUvarint(raw, uint64(len(s.kf)))
	raw = binary.AppendUvarint(raw, uint64(len(s.data)))
	raw = binary.AppendUvarint(raw, uint64(len(s.events)))
	raw = append(raw, s.kf...)
	raw = append(raw, s.data...)
	at, end := s.start, 0
	for _, e := range s.events {
		raw = binary.AppendVarint(raw, e.at-at)
		raw = binary.AppendUvarint(raw, uint64(e.end-end))
		raw = append(raw, e.kind)
		if e.kind == 'r' {
			raw = binary.AppendUvarint(raw, uint64(e.cols))
			raw = binary.AppendUvarint(raw, uint64(e.rows))
		}
		at, end = e.at, e.end
	}
	p := packer.EncodeAll(raw, nil)
	s.packed = append(make([]byte, 0, len(p)), p...) // no slack kept
	s.kf, s.data, s.events = "", nil, nil
}

// unpack turns a copy of a packed segment (SaveLast's, off the ring's
// lock) back into its keyframe, output and events.
func (s *segment) unpack() error {
	raw, err := unpacker.DecodeAll(s.packed, nil)
	if err != nil {
		return fmt.Errorf("%w: %w", errPacked, err)
	}
	r := reader{b: raw}
	nkf, ndata, nev := r.uvarint(), r.uvarint(), r.uvarint()
	if r.bad || nkf+ndata > uint64(len(r.b)) || nev > uint64(len(r.b)) {
		return errPacked
	}
	kf, data := string(r.b[:nkf]), r.b[nkf:nkf+ndata]
	r.b = r.b[nkf+ndata:]
	events := make([]event, 0, nev)
	at, end := s.start, 0
	for range nev {
		at += r.varint()
		end += int(r.uvarint())
		e := event{at: at, end: end, kind: r.byte()}
		if e.kind == 'r' {
			e.cols, e.rows = int32(r.uvarint()), int32(r.uvarint())
		}
		if r.bad || end > len(data) {
			return errPacked
		}
		events = append(events, e)
	}
	s.kf, s.data, s.events, s.packed = kf, data, events, nil
	return nil
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
