package session

import (
	"time"
)

// handOff is the read size from which the reader hands output to the
// consumer instead of settling it itself. A flood's reads are large
// (cat of 20 MB through a local PTY: 94% of them 1 KiB or more, most near
// the line discipline's 4 KiB) and parse fastest in the consumer's
// windows while the reader reads on; a key's echo, a prompt or a program
// redrawing a few lines at a time reads less.
const handOff = 1 << 10

// readNower is a PTY that can be read without waiting (a local one):
// ReadNow returns what the child wrote so far, 0 and no error when it
// wrote nothing yet. Its paced reads are taken on the pacer's tick.
type readNower interface {
	ReadNow(p []byte) (int, error)
}

// pollPacer is a Pacer that runs a paced reader's reads on its own tick
// (parsegate's Turns): the reader stays parked while its pane keeps
// writing a little at a time.
type pollPacer interface {
	PaceWith(done <-chan struct{}, poll func() bool)
}

// reader is readLoop's state: whichever of the reader goroutine and its
// pacer's tick (while the reader waits in PaceWith) reads, it alone
// touches it.
type reader struct {
	s       *Session
	buf     []byte
	rate    paceRate
	nower   readNower // the PTY, when the pacer's tick reads it (poll); else nil
	poller  pollPacer // the pacer, when nower is set
	carried int       // bytes the tick read into buf and left for the reader to hand off
}

// readLoop moves raw bytes from the PTY to the sinks and the screen. A
// read smaller than handOff, while no window is in progress (deliverMu
// is free), it settles and delivers itself: no hand-off, whose two
// goroutine wake-ups per read were a third of the CPU of 48 panes each
// replaying a program at 20 KB/s. Anything else goes into the collector
// for the consumer; when its queue is full the reader blocks in Push, so
// the kernel's PTY buffer holds the child (contract O8), as it does while
// the reader delivers. After a small read the reader waits in its Pacer,
// if it has one, so that what the child writes meanwhile comes in one
// read (contract O9); a PTY that can be read without waiting is read on
// the pacer's tick itself, as long as its child writes a little at a
// time (pace).
func (s *Session) readLoop() {
	defer s.out.Close() // after the last Push: output closed
	r := &reader{s: s, buf: make([]byte, readBufBytes)}
	if pp, ok := s.opts.Pacer.(pollPacer); ok {
		if r.nower, _ = s.pty.(readNower); r.nower != nil {
			r.poller = pp
		}
	}
	for {
		n, err := s.pty.Read(r.buf)
		slow := r.rate.read(n, time.Now())
		if !r.take(n) || err != nil {
			return
		}
		if n < handOff && slow && s.opts.Pacer != nil {
			if n := r.pace(); n > 0 && !r.handOff(n) {
				return
			}
		}
	}
}

// take counts the n bytes read into buf and delivers them: settled here
// when they are few and no window is in progress, else handed to the
// consumer. False once the session's run ended.
func (r *reader) take(n int) bool {
	if n == 0 {
		return true
	}
	r.s.bytesOut.Add(int64(n))
	return r.settle(n) || r.handOff(n)
}

// settle delivers buf[:n] here when it is small and no window is in
// progress; false: it is the consumer's to deliver.
func (r *reader) settle(n int) bool {
	s := r.s
	if n >= handOff || !s.deliverMu.TryLock() {
		return false
	}
	// Take settles what the consumer left queued first, so the order
	// holds.
	s.deliver(s.out.Take(r.buf[:n]))
	s.deliverMu.Unlock()
	return true
}

// handOff gives the consumer buf[:n]; it waits while its queue is full.
func (r *reader) handOff(n int) bool {
	return r.s.out.Push(r.s.runCtx, r.buf[:n]) == nil
}

// pace waits before the next read: on the pacer's tick, which reads a
// PTY that can be read without waiting itself (poll) until there is
// nothing to read or too much. It returns how many bytes the tick read
// and left to hand off.
func (r *reader) pace() int {
	s := r.s
	if r.nower == nil {
		s.opts.Pacer.Pace(s.runCtx.Done())
		return 0
	}
	r.carried = 0
	r.poller.PaceWith(s.runCtx.Done(), r.poll)
	return r.carried
}

// poll is one paced read, on the pacer's tick while the reader waits:
// true when the pane waits for the next tick. Nothing to read (the
// reader then waits in the poller), an error (the reader's own read will
// meet it), a read that is not small, or one the reader must hand off
// end the pacing.
func (r *reader) poll() bool {
	n, err := r.nower.ReadNow(r.buf)
	if n == 0 || err != nil {
		return false
	}
	slow := r.rate.read(n, time.Now())
	r.s.bytesOut.Add(int64(n))
	if r.settle(n) {
		return slow
	}
	// A Push could wait for the consumer, holding up every pane's
	// tick: the reader hands these off itself.
	r.carried = n
	return false
}

// Pacing is for a child that writes a little at a time. One that writes
// fast still reads small at times (a reader that keeps up takes what the
// line discipline has so far); paced, each such read cost a pace, and one
// pane of cat through 20 MB took 1.1-1.6 s instead of 0.9-1.3. So the
// reader paces only while the child wrote less than paceBelow bytes in its
// last paceWindow.
const (
	paceWindow = 100 * time.Millisecond
	paceBelow  = 8 << 10 // 80 KiB a second: four agents' TUIs at full tilt
)

// paceRate measures the child's output rate, a window at a time.
type paceRate struct {
	start time.Time // of the window being counted
	bytes int       // in it so far
	fast  bool      // the last window held paceBelow bytes or more
}

// read counts n bytes read at now and reports whether the child writes
// slowly enough to be paced.
func (r *paceRate) read(n int, now time.Time) bool {
	if d := now.Sub(r.start); d >= paceWindow {
		// A window that ended long ago counts as quiet.
		r.fast = r.bytes >= paceBelow && d < 2*paceWindow
		r.start, r.bytes = now, 0
	}
	r.bytes += n
	return !r.fast && r.bytes < paceBelow
}
