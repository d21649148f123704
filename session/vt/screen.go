package vt

import (
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/hinshun/vt10x"
)

// Defaults for the options.
const (
	DefaultScrollback  = 2000
	DefaultSyncTimeout = time.Second
	DefaultReplyQueue  = 64
)

// Option configures a Screen.
type Option func(*config)

type config struct {
	replies     io.Writer
	scrollback  int
	syncTimeout time.Duration
	replyQueue  int
	wake        func(parsed bool)
}

// WithReplies sets where answers to the child go: the PTY. Without it they
// are discarded. The writer may block; the Screen never waits for it.
func WithReplies(w io.Writer) Option { return func(c *config) { c.replies = w } }

// WithScrollback sets how many lines scrolled off the main screen are kept
// (config ui.scrollback); 0 keeps none.
func WithScrollback(lines int) Option {
	return func(c *config) { c.scrollback = max(lines, 0) }
}

// WithSyncTimeout bounds how long a synchronized update (mode 2026) may hold
// back the dirty signal.
func WithSyncTimeout(d time.Duration) Option { return func(c *config) { c.syncTimeout = d } }

// WithWake makes the screen also call wake each time it raises its dirty
// signal, under its lock (it must never block), so one goroutine can
// wait for any of many screens, poked by each, and then ask each (Dirty)
// which changed. parsed says the change is output Write parsed, whose
// caller goes on once the lock is let go (a wake may be left to it).
func WithWake(wake func(parsed bool)) Option { return func(c *config) { c.wake = wake } }

// WithReplyQueue sets how many replies may wait for the PTY before new ones
// are dropped.
func WithReplyQueue(n int) Option { return func(c *config) { c.replyQueue = max(n, 1) } }

// Screen is one pane's terminal screen. Write feeds it from the output
// consumer; Snapshot, Modes and the rest may be called from any goroutine.
type Screen struct {
	mu      sync.Mutex
	term    vt10x.Terminal
	f       *filter
	cols    int
	rows    int
	pending []byte // filtered bytes not yet given to vt10x
	cur     cursorModel
	last    lastPrint
	sb      scrollback
	// bursting mirrors sb.burst, for Bursting without the lock.
	bursting atomic.Bool
	rowBuf   []Cell
	lineBuf  []vt10x.Glyph // a row of vt10x read whole (termRow)
	textBuf  []byte        // a scrolled line's text being made (pushPlain)
	closed   bool

	// Bulk scrolling (bulk.go).
	noBulk   bool        // tests compare against the ordinary path
	noDirect bool        // tests compare direct lines against the glyph row's
	directs  int         // how many lines were laid out direct, for tests
	suppress int         // captures to skip: rows a bulk already stored
	shapes   []lineShape // the lines of a bulk, measured (bulkPrefix)
	bulkRow  []vt10x.Glyph
	tailPens []uint32 // the pens of a direct line's trailing spaces (bulkline.go)
	bulks    int      // how many bulk layouts ran, for tests
	penCache map[penKey]penMemo
	// penRecent is the memo in front of penCache (penSlot).
	penRecent [penSlots]penMemo
	inBulk    bool // a bulk layout holds pen ids in bulkRow

	// Pens (pen.go).
	pens       penTable
	printPen   uint32   // id of the filter's pen
	erasePenID int32    // id of its background-only pen, -1 until asked for
	vtPen      int64    // the id vt10x's pen holds, -1 when unknown
	altPins    []uint32 // ids the main screen uses while the alternate one hides it

	// Grapheme clusters (cluster.go).
	clusters clusterTable
	clBuf    []byte
	altRunes []rune // stand-ins the main screen uses while the alternate one hides it

	// Keyframes and taps (keyframe.go, tap.go).
	taps        []tapEntry
	tapSeq      uint64
	saved       vt10x.Cursor  // the cursor vt10x saved last (DECSC, ?1048, ?1049)
	altMain     []vt10x.Glyph // the main screen under the alternate one
	altMainCols int
	altFlowed   bool   // altMain was reflowed: paint it on leaving (altflow.go)
	tabs        []bool // the tab stops, when not the defaults
	kfBuf       []byte

	syncTimeout  time.Duration
	syncDeadline time.Time // zero when no update holds the dirty signal
	syncExpired  bool

	replies *replyQueue
	dirty   chan struct{}
	wake    func(parsed bool) // may be nil
	// epoch counts the side tables' sweeps: a frame read under an older
	// one may decode a reused id wrongly, so Snapshot reads it whole.
	epoch uint64
	// Row versions (rows.go): knownLen bytes of pending change only the
	// touched rows; rowVers[y] is the version that last changed row y,
	// allVer the last that changed them all.
	knownLen       int
	touched        []int
	rowVer, allVer uint64
	rowVers        []uint64
	kick           chan struct{} // wakes the clock goroutine when the deadline changes
	clockOn        bool          // the clock goroutine runs (started by the first update)
	done           chan struct{}
	wg             sync.WaitGroup
}

// New returns a Screen of cols x rows; Close stops its goroutines. They
// start when needed, under the Screen's lock: the reply pump while
// replies are queued, the clock with the first synchronized update. Most
// panes never query the terminal nor hold an update, and a goroutine's
// stack is the larger part of what an idle pane costs.
func New(cols, rows int, opts ...Option) *Screen {
	c := config{replies: io.Discard, scrollback: DefaultScrollback,
		syncTimeout: DefaultSyncTimeout, replyQueue: DefaultReplyQueue}
	for _, o := range opts {
		o(&c)
	}
	cols, rows = max(cols, 1), max(rows, 1)
	s := &Screen{
		cols: cols, rows: rows,
		syncTimeout: c.syncTimeout,
		replies:     &replyQueue{max: c.replyQueue},
		dirty:       make(chan struct{}, 1),
		wake:        c.wake,
		kick:        make(chan struct{}, 1),
		done:        make(chan struct{}),
	}
	s.sb.max = c.scrollback
	s.pens.init()
	s.clusters.init()
	s.erasePenID = -1
	s.resizeRows()
	s.term = vt10x.New(vt10x.WithWriter(s.replies), vt10x.WithSize(cols, rows))
	s.f = newFilter(s, cols, rows)
	s.f.links.roots = s.linkRoots
	s.replies.start = func() {
		if !s.closed {
			s.wg.Go(func() { s.replies.drain(c.replies, s.done) })
		}
	}
	return s
}

// Close stops the Screen's goroutines and waits for them. A reply write
// blocked on a child that does not read is waited for too, so close the PTY
// first (session teardown does); that interrupts the write when a write
// waiting for room ends at Close, as providers/local's does (it waits on a
// duplicate registered with Go's poller, which Close closes). Close is
// idempotent; Write after Close does nothing.
func (s *Screen) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		s.wg.Wait()
		return
	}
	s.closed = true
	close(s.done)
	s.mu.Unlock()
	s.wg.Wait()
}

// writeSlice bounds the text parsed under one hold of the lock, per 24
// rows of screen, so that Snapshot and the rest wait a few milliseconds at
// most behind a child that floods, however big the Write. Bulk scrolling
// leaves the last screenful of every slice to vt10x's slow path, so the
// slice grows with the screen to keep that share small, up to
// maxWriteSlice: at 16 KiB per 24 rows a scrolling stream cost half as
// much CPU again (measured: 175 CPU ticks against 115 for 20 MB in one
// 200x50 pane).
const (
	writeSlice    = 64 << 10
	maxWriteSlice = 256 << 10
)

// Write feeds settled text (complete, valid UTF-8) from the child. It never
// blocks on the child or the UI, only on the Screen's lock, which it takes
// once per slice (see writeSlice).
func (s *Screen) Write(text string) {
	for {
		n, ok := s.writeLocked(text)
		if !ok || n == len(text) {
			return
		}
		text = text[n:]
	}
}

// writeLocked parses the first slice of text and returns its length, or
// false once the Screen is closed.
func (s *Screen) writeLocked(text string) (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, false
	}
	n := SliceEnd(text, SliceFor(s.rows))
	s.sb.pushed = 0 // lines a reflow pushed since are no burst
	s.writeText(text[:n])
	s.flush()
	s.sb.endWrite()
	s.bursting.Store(s.sb.burst)
	if len(s.taps) > 0 {
		s.tapOutput(text[:n])
	}
	s.markDirty(true)
	return n, true
}

// Bursting reports whether the scrollback holds a burst's lines
// unpacked: the caller that feeds the Screen calls EndBurst once output
// has paused for BurstQuiet.
func (s *Screen) Bursting() bool { return s.bursting.Load() }

// EndBurst packs the scrollback lines a burst of output held unpacked.
func (s *Screen) EndBurst() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sb.endBurst()
	s.bursting.Store(false)
}

// SliceFor is how many bytes a screen of rows parses per hold of its
// lock: a caller that takes turns among screens can slice the same way.
func SliceFor(rows int) int {
	return min(maxWriteSlice, writeSlice*max(1, (rows+23)/24))
}

// SliceEnd is where the first slice of text, at most n bytes, ends: after
// its last LF when that is in the slice's second half (bulk scrolling takes
// whole lines), else at the last rune start, so every slice stays valid
// UTF-8. A caller that slices for Write (taking turns among screens) cuts
// where Write itself would.
func SliceEnd(text string, n int) int {
	if len(text) <= n {
		return len(text)
	}
	if i := strings.LastIndexByte(text[n/2:n], '\n'); i >= 0 {
		return n/2 + i + 1
	}
	for i := n; i > n-utf8.UTFMax; i-- {
		if utf8.RuneStart(text[i]) {
			return i
		}
	}
	return n // not UTF-8 after all: any cut is as good
}

// Signals is what the child asked of the user's terminal since the last
// TakeSignals: a bell, and the latest notification's text (as sent: the
// caller escapes it).
type Signals struct {
	Bell      bool
	Notice    string
	HasNotice bool
}

// TakeSignals returns the bell and notification the child sent since the
// last call, and clears them. TakeMarks is independent of it.
func (s *Screen) TakeSignals() Signals {
	s.mu.Lock()
	defer s.mu.Unlock()
	sig := Signals{Bell: s.f.bell}
	if s.f.notice != nil {
		sig.Notice, sig.HasNotice = *s.f.notice, true
	}
	s.f.bell, s.f.notice = false, nil
	return sig
}

// Dirty returns a channel that receives (one slot, never blocking the
// Screen) after the screen, title or modes changed, except while the child
// holds a synchronized update (mode 2026) that has not timed out.
func (s *Screen) Dirty() <-chan struct{} { return s.dirty }

// Modes returns the modes the child set, for encoding keys, mouse and paste.
func (s *Screen) Modes() Modes {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.f.st.modes
}

// Title returns the title the child set with OSC 0 or 2.
func (s *Screen) Title() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.f.st.title
}

// Size returns the screen size in cells.
func (s *Screen) Size() (cols, rows int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cols, s.rows
}

// DroppedReplies returns how many replies were dropped because the queue to
// the child was full.
func (s *Screen) DroppedReplies() uint64 { return s.replies.dropped.Load() }

// Resize changes the size of the emulator; resize the PTY after it, so that
// the child's redraw lands on a screen of the new size. A width change
// reflows the main screen and the scrollback (reflow.go); lines that leave
// the top of the main screen when it shrinks go to the scrollback, and
// come back when it grows, so the bottom stays put (as in tmux).
func (s *Screen) Resize(cols, rows int) {
	cols, rows = max(cols, 1), max(rows, 1)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || cols == s.cols && rows == s.rows {
		return
	}
	reflowed := false
	if cols != s.cols {
		s.resizeTo(cols, s.rows, true) // the width first, as one reflow
		reflowed = true
	}
	s.resizeTo(cols, rows, false)
	if len(s.taps) > 0 {
		s.tapResize(reflowed)
	}
	s.markDirty(false)
}

// extendTabs sets the default stops (every 8 columns) in the columns a
// resize added: vt10x extends its old tab array instead of the new one.
// HTS sets a stop at the cursor, so move there and back.
func (s *Screen) extendTabs(from int) {
	c := s.term.Cursor()
	b := s.pending[:0]
	for x := (from + 7) / 8 * 8; x < s.cols; x += 8 {
		b = append(b, "\x1b["...)
		b = appendInt(b, x+1)
		b = append(b, "G\x1bH"...)
	}
	// The scroll region is the full screen after a resize, so CUP is
	// absolute even in origin mode.
	b = append(b, "\x1b["...)
	b = appendInt(b, c.Y+1)
	b = append(b, ';')
	b = appendInt(b, c.X+1)
	s.pending = append(b, 'H')
	s.flush()
}

// markDirty raises the dirty signal unless a synchronized update holds it.
func (s *Screen) markDirty(parsed bool) {
	if s.f.st.modes.SyncOutput && !s.syncExpired {
		return
	}
	select {
	case s.dirty <- struct{}{}:
	default:
	}
	if s.wake != nil {
		s.wake(parsed)
	}
}

// syncChanged starts or ends a synchronized update.
func (s *Screen) syncChanged(on bool) {
	s.syncExpired = false
	if on {
		s.syncDeadline = time.Now().Add(s.syncTimeout)
	} else {
		s.syncDeadline = time.Time{}
	}
	if !s.clockOn {
		if !on || s.closed {
			return
		}
		s.clockOn = true
		s.wg.Go(s.clock)
	}
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// clock ends synchronized updates that outlive the timeout, so a child
// that sets 2026 and never resets it cannot freeze its pane.
func (s *Screen) clock() {
	t := time.NewTimer(time.Hour)
	t.Stop()
	for {
		select {
		case <-s.done:
			t.Stop()
			return
		case <-s.kick:
		case <-t.C:
		}
		s.mu.Lock()
		if d := s.syncDeadline; !d.IsZero() && !time.Now().Before(d) {
			s.syncDeadline = time.Time{}
			s.syncExpired = true
			s.markDirty(false)
		}
		d := s.syncDeadline
		s.mu.Unlock()
		// Since Go 1.23 Stop and Reset leave no stale tick in t.C.
		t.Stop()
		if !d.IsZero() {
			t.Reset(time.Until(d))
		}
	}
}
