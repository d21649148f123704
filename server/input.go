package server

// The guard between a client's input and the decoder that turns it into
// keys (A13, decode.go). Bubble Tea's decoder, which sandmux ran before,
// keeps what it cannot decode yet until 50 ms pass with no input: an
// escape sequence never finished, a byte that is not UTF-8, an ESC and
// one more byte (it waits to see whether it is alt+key); and it keeps a
// bracketed paste whole until its end marker. A client that sends
// ESC[200~, or one stray byte, and then a stream with no pause made the
// server hold all of it, rescanning it on every read. The guard passes
// on only what the decoder finishes at once, so the decoder needs no
// buffer and no timer:
//
//   - text as whole UTF-8 characters; a byte that is not UTF-8 is
//     dropped;
//   - CSI and SS3 sequences whole, once finished and well formed (at
//     most maxSeq bytes, 16 parameters of 9 digits), X10 mouse reports
//     with their three bytes; anything else that starts with ESC is
//     dropped;
//   - OSC, DCS, APC, PM and SOS strings never, however long, without
//     keeping them (a client sends them only to answer queries) — but
//     for the answers to the colour queries the server makes of the
//     client's terminal (OSC 10, 11, 12), whole within maxOSC bytes;
//   - ESC and one byte (alt+key) as the same key in the CSI u form, and
//     an ESC that nothing follows within escWait as the Escape key, so
//     the decoder never waits on an ESC;
//   - a bracketed paste in pieces of at most maxPaste bytes, each
//     bracketed, so the decoder never holds more; a read-only client's
//     paste arrives empty (its content is dropped here, before any
//     decoding).

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	uv "github.com/charmbracelet/ultraviolet"

	"github.com/sandmux/sandmux/attach"
)

const (
	// maxSeq bounds a CSI or SS3 sequence the guard keeps until it is
	// finished: a key or mouse report takes a few dozen bytes.
	maxSeq = 64
	// maxOSC bounds the colour report (OSC 10, 11 or 12) the guard keeps
	// until it ends: "rgb:ffff/ffff/ffff" and its introducer take 25.
	maxOSC = 128
	// maxPaste bounds the piece of a paste the decoder gathers: a paste
	// reaches the pane in pieces of at most this many bytes.
	maxPaste = 64 << 10
	// escWait is how long an ESC waits for the byte that would make it
	// alt+key or a sequence before it counts as the Escape key: the
	// decoder's own wait.
	escWait = uv.DefaultEscTimeout
	// readSize is how much the guard reads at once.
	readSize = 4 << 10
)

const (
	esc          = 0x1b
	pasteStart   = "\x1b[200~"
	pasteEnd     = "\x1b[201~"
	escapeKey    = "\x1b[27u"
	pasteRestart = pasteEnd + pasteStart
)

// altKeys is ESC followed by each ASCII byte as the decoder reads it,
// written in the CSI u form, which it decodes to the same key at once.
var altKeys = func() (t [0x80]string) {
	var d uv.EventDecoder
	for b := range t {
		_, ev := d.Decode([]byte{esc, byte(b)})
		if k, ok := ev.(uv.KeyPressEvent); ok {
			if k.ShiftedCode != 0 {
				t[b] = fmt.Sprintf("\x1b[%d:%d;%du", k.Code, k.ShiftedCode, 1+int(k.Mod))
			} else {
				t[b] = fmt.Sprintf("\x1b[%d;%du", k.Code, 1+int(k.Mod))
			}
		}
	}
	return t
}()

// guardState is where the guard is in the input.
type guardState int

const (
	inText   guardState = iota
	inUTF8              // inside a multi-byte character
	inEsc               // after an ESC
	inCSI               // inside a CSI sequence
	inSS3               // after ESC O
	inX10               // the three bytes of an X10 mouse report
	inString            // dropping an OSC, DCS, APC, PM or SOS string
	inJunk              // dropping the rest of a CSI sequence that is too long
)

// inputGuard reads a client's input and hands the decoder only what it
// can decode at once (see above). Read may be called from one goroutine
// at a time; Close stops its reader and makes Read return io.EOF.
type inputGuard struct {
	readOnly bool
	term     attach.DeadlineReader // a terminal the client handed over, read here; or nil and:
	chunks   <-chan []byte         // from the reader goroutine (or the stream's own); closed at its end
	done     chan struct{}         // closed by Close
	ended    chan struct{}         // closed when the reader goroutine returned
	err      error                 // why the reader ended, once chunks closed
	closed   sync.Once

	out []byte // ready for Read
	buf []byte // what readTerminal reads into
	// deadline: the terminal has a read deadline set (an ESC is held);
	// none is set or cleared for a read that needs none, the common case.
	deadline bool
	tokenizer
}

// chunkSource is a stream that hands its input over on a channel
// (attach.Conn's Chunks): the guard receives from it itself.
type chunkSource interface{ Chunks() <-chan []byte }

// terminalSource is a stream that may give the client's terminal itself
// (attach.Conn's Terminal, when the client handed it over): the guard
// reads it in the goroutine that decodes, the ESC wait as the read's
// deadline, with no goroutine and no hand-off between a key and the
// model.
type terminalSource interface {
	Terminal() attach.DeadlineReader
}

// newInputGuard starts reading r: with a reader goroutine of its own, or,
// for a chunkSource or a terminal handed over, none.
func newInputGuard(r io.Reader, readOnly bool) *inputGuard {
	g := &inputGuard{readOnly: readOnly, done: make(chan struct{}), ended: make(chan struct{})}
	g.tokenizer.readOnly = readOnly
	g.tokenizer.out = &g.out
	if src, ok := r.(terminalSource); ok {
		if g.term = src.Terminal(); g.term != nil {
			close(g.ended) // read in Read itself; the stream's Finish ends that read
			return g
		}
	}
	if src, ok := r.(chunkSource); ok {
		g.chunks = src.Chunks()
		close(g.ended) // no reader to wait for: the stream owns its own
		return g
	}
	chunks := make(chan []byte)
	g.chunks = chunks
	go func() { defer close(g.ended); g.read(r, chunks) }() // Joined by Close.
	return g
}

// read hands over what r returns until it fails or Close.
func (g *inputGuard) read(r io.Reader, chunks chan<- []byte) {
	defer close(chunks)
	for {
		buf := make([]byte, readSize)
		n, err := r.Read(buf)
		if n > 0 {
			select {
			case chunks <- buf[:n]:
			case <-g.done:
				return
			}
		}
		if err != nil {
			g.err = err // read by Read once chunks closed
			return
		}
	}
}

// Read returns input the decoder can decode at once; the reader's error
// once it ended.
func (g *inputGuard) Read(p []byte) (int, error) {
	for len(g.out) == 0 {
		if g.term != nil {
			if err := g.readTerminal(); err != nil {
				return 0, err
			}
			continue
		}
		var wait <-chan time.Time
		var timer *time.Timer
		if g.holding() {
			timer = time.NewTimer(escWait)
			wait = timer.C
		}
		select {
		case c, ok := <-g.chunks:
			if !ok {
				g.expire()
				if len(g.out) > 0 {
					break
				}
				if g.err == nil {
					g.err = io.EOF
				}
				return 0, g.err
			}
			for _, b := range c {
				g.feed(b)
			}
		case <-wait:
			g.expire()
		case <-g.done:
			// Closed: the attachment ended, and its reader need not
			// wait for a stream whose Read may never return.
			if timer != nil {
				timer.Stop()
			}
			return 0, io.EOF
		}
		if timer != nil {
			timer.Stop()
		}
	}
	n := copy(p, g.out)
	g.out = g.out[n:]
	if len(g.out) == 0 {
		g.out = nil // let a large piece go
	}
	return n, nil
}

// readTerminal reads the handed-over terminal once into the tokenizer,
// waiting at most escWait while an ESC is held.
func (g *inputGuard) readTerminal() error {
	if g.err != nil {
		return g.err
	}
	select {
	case <-g.done:
		return io.EOF
	default:
	}
	if hold := g.holding(); hold || g.deadline {
		var deadline time.Time
		if hold {
			deadline = time.Now().Add(escWait)
		}
		_ = g.term.SetReadDeadline(deadline) // Best effort: a terminal without deadlines holds an ESC until the next key.
		g.deadline = hold
	}
	if g.buf == nil {
		g.buf = make([]byte, readSize)
	}
	n, err := g.term.Read(g.buf)
	for _, b := range g.buf[:n] {
		g.feed(b)
	}
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		g.expire()
	case err != nil:
		g.expire()
		g.err = err // returned once what it finished was read
	}
	if len(g.out) > 0 {
		return nil
	}
	return g.err
}

// Close stops the reader and waits for it: the stream it reads has
// finished, so its Read should return. One that has not after closeWait
// (an SSH client that never closes its side) has its stream cut, when
// it can be, and is waited for as long again. A stream owes the server
// only Finish, though: if its Read still has not returned, Close returns
// all the same, and the reader ends when that Read does, handing nothing
// on; the guard's own Read returns at once.
func (g *inputGuard) Close(st io.Reader) {
	g.closed.Do(func() { close(g.done) })
	for i := range 2 {
		t := time.NewTimer(closeWait)
		select {
		case <-g.ended:
			t.Stop()
			return
		case <-t.C:
		}
		if cu, ok := st.(Cutter); ok && i == 0 {
			cu.Cut()
		}
	}
}

// closeWait is how long Close waits for a finished stream's Read.
const closeWait = time.Second
