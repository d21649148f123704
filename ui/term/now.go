package term

// Drawing a key's echo in the Update that made it. The drawing goroutine
// lets an Update hand a frame over without waiting for a terminal that
// is slow to take it; but handing the frame over wakes that goroutine,
// one more hand-off between a key and its echo. A terminal handed to the
// server can be written without waiting (a raw non-blocking write), so a
// frame with an echo is written by its Update when nothing else is
// drawing, and only what the terminal did not take at once is left to
// the goroutine, which writes it before anything else. ShowNow says when
// it wrote some of the frame itself, so that the server can step aside
// then (package server's yield_linux.go).

import tea "charm.land/bubbletea/v2"

// nowWriter is an output that writes what it takes at once without
// waiting: n, the bytes written, may be short (the terminal is full, or
// another write is under way). ok false: it never can (its terminal is
// relayed), and Write is the only way.
type nowWriter interface {
	WriteNow(p []byte) (n int, ok bool)
}

// ShowNow is ShowParts for a frame with a key's echo: when the terminal
// takes bytes without waiting and no drawing is under way, the caller
// draws the frame itself, one goroutine hand-off less between the key
// and its echo; what the terminal does not take at once, the goroutine
// writes next, before anything else. wrote: the caller wrote some of
// the frame to the terminal itself.
func (t *Terminal) ShowNow(lines []string, cuts [][]Cut, cursor *tea.Cursor, width int) (wrote bool) {
	if !t.hand(lines, cuts, cursor, width) {
		return false
	}
	if t.now == nil || !t.drawMu.TryLock() {
		t.poke()
		return false
	}
	defer t.drawMu.Unlock()
	if t.closed {
		return false
	}
	// Once the terminal took less than it was given, the rest of the
	// drawing waits behind what it left, in order.
	var left []byte
	t.drawPending(func(b []byte) {
		if len(left) == 0 {
			n, _ := t.now.WriteNow(b)
			b = b[n:]
			wrote = wrote || n > 0
		}
		left = append(left, b...)
	})
	if len(left) > 0 {
		t.mu.Lock()
		t.through = append(left, t.through...)
		t.mu.Unlock()
		t.poke()
	}
	return wrote
}
