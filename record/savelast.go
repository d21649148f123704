package record

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/sandmux/sandmux/asciicast"
	"github.com/sandmux/sandmux/session/vt"
)

// ErrEmpty is SaveLast's error when the ring holds nothing yet.
var ErrEmpty = errors.New("nothing recorded yet: the ring keeps output only while it is attached")

// SaveLast writes the last d before now as an asciicast v2 to w. The cast
// starts at the window's start with the exact screen then (a keyframe at
// time 0, header at that size), and goes on with every event since, at
// its time from the start ('o' output, 'r' resize). A window reaching
// further back than the ring keeps starts at the oldest keyframe.
//
// The ring is locked only to take its segments (they are never written in
// place); reading them back from its file, and finding the screen at the
// start, which replays at most one segment, are done off the lock.
func (r *Ring) SaveLast(w io.Writer, d time.Duration, now time.Time) error {
	segs, file := r.snapshot()
	return saveLast(w, segs, file, now.Add(-d).UnixNano(), d)
}

// saveLast is SaveLast from the ring's snapshot: its segments and file.
func saveLast(w io.Writer, segs []segment, file *spillFile, ws int64, d time.Duration) error {
	i := 0
	for i+1 < len(segs) && segs[i+1].start <= ws {
		i++
	}
	segs, err := readBack(segs[i:], file)
	if err != nil {
		return fmt.Errorf("save last %v: %w", d, err)
	}
	if len(segs) == 0 {
		return ErrEmpty
	}
	ws = max(ws, segs[0].start)
	i = 0
	for j := range segs {
		unpack := segs[j].unpack
		if segs[j].packed == nil {
			unpack = segs[j].unchunk
		}
		if err := unpack(); err != nil {
			return fmt.Errorf("save last %v: %w", d, err)
		}
	}
	kf, cols, rows, next := screenAt(&segs[i], ws)
	cw, err := asciicast.NewWriter(w, asciicast.Header{Width: cols, Height: rows, Timestamp: ws / 1e9}, time.Unix(0, ws))
	if err != nil {
		return fmt.Errorf("save last %v: %w", d, err)
	}
	c := castWriter{w: cw, start: ws, cols: cols, rows: rows}
	c.output(ws, kf)
	c.events(&segs[i], next)
	// Each segment goes on from the one before: rings and the budget drop
	// only the oldest, and a ring that lost all of them starts afresh.
	for j := i + 1; j < len(segs); j++ {
		c.events(&segs[j], 0)
	}
	if err := cw.Flush(); err != nil {
		return fmt.Errorf("save last %v: %w", d, err)
	}
	return nil
}

// snapshot copies the segments' headers, and returns the ring's file:
// their data, chunks and events are only ever appended to (a chunked tail
// is replaced, not reused), so the slices stay valid off the lock; what
// is in the file is read back with readBack.
func (r *Ring) snapshot() ([]segment, *spillFile) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]segment, 0, len(r.segs))
	for _, s := range r.segs {
		s.shared = true
		out = append(out, segment{start: s.start, cols: s.cols, rows: s.rows, kf: s.kf,
			data: s.data, chunks: s.chunks, base: s.base, chunkedAt: s.chunkedAt, events: s.events,
			packed: s.packed, disk: s.disk, from: s})
	}
	return out, r.spill
}

// readBack reads the packed bytes of the segments in the ring's file,
// and returns the segments from the first one the ring still keeps: a
// segment dropped after the snapshot may have been written over, and it
// and every older one are left out. (The ring marks a segment gone
// before its bytes are punched or written over, and the mark is read
// after them.)
func readBack(segs []segment, file *spillFile) ([]segment, error) {
	kept := 0
	for j := range segs {
		s := &segs[j]
		if s.disk.n == 0 {
			continue
		}
		b, err := file.read(s.disk)
		if s.from.gone.Load() {
			kept = j + 1
			continue
		}
		if err != nil {
			return nil, err
		}
		s.packed, s.disk = b, span{}
	}
	return segs[kept:], nil
}

// screenAt replays seg up to ws into a scratch screen and returns its
// keyframe and size, and the index of the first event after ws.
func screenAt(seg *segment, ws int64) (kf []byte, cols, rows, next int) {
	next = 0
	for next < len(seg.events) && seg.events[next].at <= ws {
		next++
	}
	if next == 0 {
		return []byte(seg.kf), seg.cols, seg.rows, 0
	}
	s := vt.New(seg.cols, seg.rows, vt.WithScrollback(0))
	defer s.Close()
	s.Write(seg.kf)
	prev := 0
	for _, e := range seg.events[:next] {
		switch e.kind {
		case 'o':
			s.Write(string(seg.data[prev:e.end]))
			prev = e.end
		case 'r':
			s.Resize(int(e.cols), int(e.rows))
		}
	}
	cols, rows = s.Size()
	return s.Keyframe(nil), cols, rows, next
}

// castWriter writes events with times from the cast's start.
type castWriter struct {
	w          *asciicast.Writer
	start      int64
	cols, rows int
}

func (c *castWriter) since(at int64) time.Duration { return time.Duration(max(at-c.start, 0)) }

func (c *castWriter) output(at int64, text []byte) {
	c.w.WriteEvent(c.since(at), "o", string(text))
}

func (c *castWriter) resize(at int64, cols, rows int) {
	if cols == c.cols && rows == c.rows {
		return
	}
	c.cols, c.rows = cols, rows
	c.w.WriteEvent(c.since(at), "r", strconv.Itoa(cols)+"x"+strconv.Itoa(rows))
}

// events writes seg's events from index from on.
func (c *castWriter) events(seg *segment, from int) {
	prev := 0
	if from > 0 {
		prev = seg.events[from-1].end
	}
	for _, e := range seg.events[from:] {
		switch e.kind {
		case 'o':
			c.output(e.at, seg.data[prev:e.end])
			prev = e.end
		case 'r':
			c.resize(e.at, int(e.cols), int(e.rows))
		}
	}
}
