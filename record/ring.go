// Package record records pane screens as asciicast v2: the Ring keeps
// the last minutes of one screen's output, packed, within its own bounds
// and a Budget shared by all rings, in memory or a file of its own with
// no name (spill.go), and writes any window of them as a cast
// (SaveLast); the Recorder writes one screen to a cast file as it goes,
// with markers, pauses and an idle limit. Both take what the screen
// parsed from a vt.Tap and start from a keyframe, so a cast may start in
// the middle of a stream and still replay to the exact screen.
//
// It does not choose file names, parse the config or talk to the UI: the
// caller gives it writers, bounds, screens and the directory of the
// rings' files.
//
//	vt.Screen.Write ─► tap (under the screen's lock, copies only)
//	   ├─► Ring: segments [keyframe, events…] ─► SaveLast ─► asciicast
//	   └─► Recorder: bounded queue ─► its goroutine ─► asciicast ─► file
package record

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/sandmux/sandmux/session/vt"
)

// Defaults for RingOptions. A keyframe every 10 s of output (or 256 KiB,
// whichever comes first) bounds what SaveLast replays to find the screen
// at the window's start to that much, tens of milliseconds; a keyframe of
// a busy 200x50 screen may reach tens of KiB, so a time-triggered one also
// waits until the output since the last outweighs half of that keyframe,
// which keeps keyframes at most a third of the ring. Not more often: each
// segment is packed alone, and a longer one finds more of what a
// full-screen program draws again (the same rows, the same colours) and
// carries fewer keyframes, while the open segment is packed a chunk at a
// time (chunk.go). Five minutes of vim, htop and apt at 20 KB/s each
// (BenchmarkRingRetain with bench/streams.sh's recordings) took 612, 354
// and 210 KiB of ring per pane with a keyframe every 5 s and the open
// segment plain, 311, 156 and 76 KiB every 10 s and chunked. A scrolling
// log at 20 KB/s takes some 850 KiB, so a ring's 4 MiB bounds only a
// flood, which would otherwise push the other panes' windows out of
// what all rings share (retain_total, config).
const (
	DefaultRetain       = 5 * time.Minute
	DefaultRetainBytes  = 4 << 20
	DefaultEvery        = 10 * time.Second
	DefaultSegmentBytes = 256 << 10
)

// RingOptions bound a Ring. Zero fields take the defaults.
type RingOptions struct {
	Retain       time.Duration // how far back output is kept
	RetainBytes  int           // how much one ring may keep
	Every        time.Duration // output time between keyframes
	SegmentBytes int           // output between keyframes at most
	// SpillDir is where the ring keeps its sealed segments, in a file
	// with no name (spill.go); "" keeps them in memory, and so does a
	// ring that cannot open or write its file.
	SpillDir string
	// Hold, when set and true, puts off a keyframe that Every makes due
	// (one that SegmentBytes makes due is not): the pane's owner awaits
	// a key's echo, and sealing the segment before it (packing it whole,
	// some 2 ms on caches gone cold between keys) would come between the
	// echo's parse and its drawing. The keyframe comes with the first
	// output after the echo is drawn. Called with the ring's lock held.
	Hold func() bool
}

func (o *RingOptions) defaults() {
	if o.Retain <= 0 {
		o.Retain = DefaultRetain
	}
	if o.RetainBytes <= 0 {
		o.RetainBytes = DefaultRetainBytes
	}
	if o.Every <= 0 {
		o.Every = DefaultEvery
	}
	if o.SegmentBytes <= 0 {
		o.SegmentBytes = DefaultSegmentBytes
	}
	o.SegmentBytes = max(1, min(o.SegmentBytes, o.RetainBytes/4))
}

// event is one output ('o': its text ends at end in the segment's data)
// or resize ('r').
type event struct {
	at         int64 // Unix nanoseconds
	end        int
	cols, rows int32
	kind       byte
}

const (
	eventSize   = 32  // bytes an event takes, for the accounting
	segOverhead = 160 // a segment's own fields
)

// segment is a keyframe and the events after it, up to the next one.
type segment struct {
	ring       *Ring
	start      int64
	cols, rows int
	kf         string
	data       []byte // output not yet in chunks, plain
	chunks     [][]byte
	base       int   // output packed into chunks (chunk.go)
	chunkedAt  int64 // the time of the last event in them
	events     []event
	packed     []byte // kf, data and events once sealed (pack.go); they are empty then
	disk       span   // where packed is in the ring's file instead, once written there
	size       int    // bytes counted for it
	// from is the segment a snapshot's copy was made of (SaveLast).
	from *segment
	// shared: a snapshot holds data, so it is not the next tail (newTail).
	shared bool
	gone   atomic.Bool
}

func (s *segment) measure() int {
	n := segOverhead + len(s.kf) + cap(s.data) + cap(s.events)*eventSize + cap(s.packed) + s.disk.n + cap(s.chunks)*chunkHeader
	for _, c := range s.chunks {
		n += cap(c)
	}
	return n
}

// Ring keeps the recent output of one screen: segments, each a keyframe
// and what followed, the oldest dropped whole when they are older than
// Retain or the ring holds more than RetainBytes, or when the Budget needs
// room. Attach it to a screen; it is safe for concurrent use.
type Ring struct {
	opts   RingOptions
	budget *Budget

	mu     sync.Mutex
	segs   []*segment
	bytes  int
	lastAt int64
	untap  func()
	closed bool
	// spill is the ring's file, opened with its first sealed segment;
	// spilled counts the bytes in it, spillErr why it is not used.
	spill    *spillFile
	spilled  int
	spillErr error
}

// NewRing returns an empty ring within opts and budget (nil for none).
func NewRing(opts RingOptions, budget *Budget) *Ring {
	opts.defaults()
	return &Ring{opts: opts, budget: budget}
}

// Attach taps s: from now on the ring keeps what s parses. A ring taps
// one screen; Close removes the tap.
func (r *Ring) Attach(s *vt.Screen) {
	untap := s.Tap(r)
	r.mu.Lock()
	r.untap = untap
	r.mu.Unlock()
}

// Close removes the tap and frees what the ring holds.
func (r *Ring) Close() {
	r.mu.Lock()
	untap := r.untap
	r.untap, r.closed = nil, true
	r.mu.Unlock()
	if untap != nil {
		untap()
	}
	r.mu.Lock()
	if r.spill != nil {
		r.spill.close() // first: the file goes whole, nothing to punch
		r.spill = nil
	}
	freed := r.dropOldest(len(r.segs))
	r.mu.Unlock()
	r.charge(-freed, nil)
}

// Bytes returns what the ring keeps, in memory and in its file, as it
// counts it: what RetainBytes and the budget bound.
func (r *Ring) Bytes() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.bytes
}

// Resident returns the part of Bytes the ring keeps in memory.
func (r *Ring) Resident() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.bytes - r.spilled
}

// Keyframe starts a segment (vt.Tap).
func (r *Ring) Keyframe(at time.Time, cols, rows int, kf []byte) {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	seg := &segment{ring: r, start: at.UnixNano(), cols: cols, rows: rows, kf: string(kf)}
	sealed := 0
	if n := len(r.segs); n > 0 {
		last := r.segs[n-1]
		// As much room as the last segment took: a busy screen fills
		// its segments, and growing them would copy each one again; a
		// chunk's, if it took chunks. A flood's is the last one's tail,
		// which packing leaves unused.
		room, tail := last.room(r.opts.SegmentBytes), last.data
		last.pack(last.codec(r.opts.SegmentBytes))
		seg.data = last.newTail(tail, room)
		sealed = last.measure() - last.size
		last.size += sealed
		r.bytes += sealed
		sealed -= r.spillSeg(last)
	}
	seg.size = seg.measure()
	r.segs = append(r.segs, seg)
	delta := sealed + seg.size - r.trim(at.UnixNano())
	r.bytes += seg.size
	r.mu.Unlock()
	r.charge(delta, seg)
}

// Output keeps text (vt.Tap).
func (r *Ring) Output(at time.Time, text string) {
	r.add(at, event{kind: 'o'}, text)
}

// Resize keeps a size change (vt.Tap).
func (r *Ring) Resize(at time.Time, cols, rows int) {
	r.add(at, event{kind: 'r', cols: int32(cols), rows: int32(rows)}, "")
}

func (r *Ring) add(at time.Time, e event, text string) {
	r.mu.Lock()
	n := len(r.segs)
	if n == 0 {
		// The budget took every segment: the keyframe asked for next
		// (WantKeyframe) has this output in it.
		r.mu.Unlock()
		return
	}
	seg := r.segs[n-1]
	e.at = at.UnixNano()
	seg.data = append(seg.data, text...)
	e.end = seg.outLen()
	seg.events = append(seg.events, e)
	seg.chunk(e.at)
	r.lastAt = e.at
	grown := seg.measure() - seg.size
	seg.size += grown
	r.bytes += grown
	delta := grown - r.trim(e.at)
	r.mu.Unlock()
	r.charge(delta, nil)
}

// WantKeyframe says whether the open segment is long enough (vt.Tap).
func (r *Ring) WantKeyframe() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(r.segs)
	if n == 0 {
		return !r.closed
	}
	seg := r.segs[n-1]
	if seg.outLen() >= r.opts.SegmentBytes {
		return true
	}
	due := time.Duration(r.lastAt-seg.start) >= r.opts.Every && seg.outLen() >= len(seg.kf)/2
	return due && (r.opts.Hold == nil || !r.opts.Hold())
}

// trim drops the segments the ring's own bounds no longer keep and
// returns the bytes freed. The open segment stays: it is what comes next.
func (r *Ring) trim(now int64) int {
	cut := now - int64(r.opts.Retain)
	k := 0
	for k+1 < len(r.segs) && r.segs[k+1].start <= cut {
		k++ // the next segment starts before the window: this one is not needed
	}
	freed := r.dropOldest(k)
	for len(r.segs) > 1 && r.bytes > r.opts.RetainBytes {
		freed += r.dropOldest(1)
	}
	return freed
}

// dropOldest drops the k oldest segments and returns their bytes.
func (r *Ring) dropOldest(k int) int {
	freed := 0
	for _, s := range r.segs[:k] {
		freed += s.size
		// Gone before its bytes are punched or written over: SaveLast
		// reads a segment back, then checks it was not gone meanwhile.
		s.gone.Store(true)
		if s.disk.n > 0 {
			if r.spill != nil {
				r.spill.punch(s.disk)
			}
			r.spilled -= s.disk.n
		}
		s.data, s.chunks, s.events, s.kf, s.packed, s.disk = nil, nil, nil, "", nil, span{}
	}
	r.segs = append(r.segs[:0], r.segs[k:]...)
	clear(r.segs[len(r.segs):cap(r.segs)])
	r.bytes -= freed
	return freed
}

// charge tells the budget, outside the ring's lock (the budget locks
// rings to evict from them).
func (r *Ring) charge(delta int, seg *segment) {
	if r.budget != nil {
		r.budget.charge(delta, seg)
	}
}

// evict drops seg and every older segment, for the budget; it returns
// the bytes freed.
func (r *Ring) evict(seg *segment) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, s := range r.segs {
		if s == seg {
			return r.dropOldest(i + 1)
		}
	}
	return 0
}
