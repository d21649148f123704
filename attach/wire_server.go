package attach

// The server's end of the local wire:
//
//	control.Server ──first line attach──▶ Handoff.AttachConn ──▶ NewConn ──▶ Attacher.Attach(ctx, *Conn)
//	client ─'i','r' frames─▶ Conn's reader goroutine ──▶ Read, Resizes
//	Write, Finish ──'o','x' frames (each bounded by writeTimeout)──▶ client
//
// or, for a client that handed its terminal over (passtty.go):
//
//	client ─'r' frames─▶ Conn's reader goroutine ──▶ Resizes
//	terminal ──read by the caller of Read or Terminal (no goroutine)──▶ keys
//	Write ──(bounded by writeTimeout)──▶ terminal;  Finish ──'x'──▶ client

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/sandmux/sandmux/control"
	"github.com/sandmux/sandmux/termsafe"
)

// writeTimeout bounds writing one frame to a client. A local client
// reads as fast as its terminal draws; one that takes nothing for this
// long is stopped (SIGSTOP) or its terminal hung, not slow. It is then
// cut off, as if it had gone away, so that neither its UI nor a quit
// that waits for every client's Finish hangs on it: the same bound as a
// control reply's.
const writeTimeout = 10 * time.Second

// maxTermLen bounds the $TERM and $COLORTERM a client may send.
const maxTermLen = 128

// ErrFinished is what Write and Finish return once the stream finished.
var ErrFinished = errors.New("the attachment already finished")

// Conn is one local client's terminal, attached over its connection,
// as the server's Stream. Read, Write and Finish may be called from
// different goroutines; Close (or Finish) waits for its reader.
type Conn struct {
	conn         net.Conn
	tty          *os.File // the client's terminal, when it handed it over: input and output go through it
	hello        Hello
	writeTimeout time.Duration

	input   chan []byte // closed by the reader when the client went away
	resizes chan Size   // one slot, the newest size wins; closed with input
	pending []byte      // owned by Read: the rest of the chunk it returned part of

	wmu      sync.Mutex // one frame at a time, from Write and Finish
	werr     error      // the first failed write: the wire cannot go on after it
	finished bool

	done      chan struct{} // closed by Close: the reader hands nothing more over
	closeOnce sync.Once
	reader    sync.WaitGroup
}

// NewConn checks an attach request's hello, answers it on c (the reply
// line, then frames follow) and returns the stream over c. buffered is
// what was already read from c after the request's line. A hello that is
// refused is answered with the error, which is also returned; c is the
// caller's to close either way.
func NewConn(c net.Conn, buffered []byte, req control.Request) (*Conn, error) {
	hello, err := helloOf(req)
	if err != nil {
		reply(c, control.Fail(err))
		return nil, err
	}
	hello.Who = who(c)
	if err := reply(c, control.Reply{OK: true}); err != nil {
		return nil, fmt.Errorf("answer %s: %w", hello.Who, err)
	}
	var tty *os.File
	if req.TTY {
		if tty, err = takeTTY(c, buffered); err != nil {
			return nil, fmt.Errorf("%s: %w", hello.Who, err)
		}
	}
	s := &Conn{
		conn:         c,
		tty:          tty,
		hello:        hello,
		writeTimeout: writeTimeout,
		input:        make(chan []byte),
		resizes:      make(chan Size, 1),
		done:         make(chan struct{}),
	}
	// bufio: a paste arrives as many frames in one read. It holds
	// nothing back: a read returns what has arrived.
	fr := &frameReader{r: bufio.NewReaderSize(io.MultiReader(bytes.NewReader(buffered), c), 64<<10)}
	s.reader.Go(func() { s.read(fr) })
	return s, nil
}

// helloOf checks what an attach request says about its terminal.
func helloOf(req control.Request) (Hello, error) {
	h := Hello{Size: Size{Width: req.Width, Height: req.Height}, ReadOnly: req.ReadOnly, Term: req.Term, ColorTerm: req.ColorTerm, Dir: req.Cwd}
	if err := checkSize(h.Size); err != nil {
		return Hello{}, fmt.Errorf("attach: %w", err)
	}
	if err := checkDir(h.Dir); err != nil {
		return Hello{}, fmt.Errorf("attach: %w", err)
	}
	for _, v := range []struct{ name, s string }{{"term", h.Term}, {"colorterm", h.ColorTerm}} {
		if len(v.s) > maxTermLen || !printable(v.s) {
			return Hello{}, fmt.Errorf("attach: %s %s is not a terminal's name (up to %d printable ASCII characters, no space)", v.name, termsafe.String(v.s[:min(len(v.s), 40)]), maxTermLen)
		}
	}
	return h, nil
}

// maxDirLen bounds a client's working directory (Linux's PATH_MAX).
const maxDirLen = 4096

// checkDir accepts "" or an absolute path a directory could have: it
// becomes the working directory of the panes the client opens.
func checkDir(dir string) error {
	switch {
	case dir == "":
		return nil
	case len(dir) > maxDirLen:
		return fmt.Errorf("cwd is %d bytes: at most %d", len(dir), maxDirLen)
	case !filepath.IsAbs(dir) || strings.ContainsRune(dir, 0):
		return fmt.Errorf("cwd %s is not an absolute path", termsafe.String(dir[:min(len(dir), 40)]))
	}
	return nil
}

func printable(s string) bool {
	for i := range len(s) {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// reply writes one reply line to a client that has not started framing.
func reply(c net.Conn, r control.Reply) error {
	r.V = control.Version
	_ = c.SetWriteDeadline(time.Now().Add(writeTimeout)) // Best effort: bounds a reply to a stalled client.
	return control.Encode(c, r)
}

// who names a local client by its process, as the kernel recorded it.
func who(c net.Conn) string {
	if uc, ok := c.(*net.UnixConn); ok {
		if pid, err := peerPID(uc); err == nil {
			return fmt.Sprintf("local pid %d", pid)
		}
	}
	return "local client"
}

// read hands input and sizes over until the client goes away, sends
// what a client never sends, or Close.
func (s *Conn) read(fr *frameReader) {
	defer close(s.resizes)
	if s.tty != nil {
		// The client went away: so did its terminal, for this stream.
		// Closing it ends a read of it (Read, Terminal) with io.EOF.
		defer s.tty.Close()
	} else {
		defer close(s.input)
	}
	for {
		t, p, err := fr.next()
		if err != nil {
			return // gone (io.EOF, a reset, Close) or unreadable: Read says io.EOF either way
		}
		switch t {
		case frameInput:
			if s.tty != nil {
				return // its keys come from the terminal it handed over
			}
			if len(p) == 0 {
				continue
			}
			select {
			case s.input <- bytes.Clone(p): // p is reused by the next frame
			case <-s.done:
				return
			}
		case frameResize:
			sz, err := decodeResize(p)
			if err != nil {
				return
			}
			OfferSize(s.resizes, sz)
		default:
			return // a frame only a server sends: not a sandmux client
		}
	}
}

// Hello is what the client said when it attached; Who is its process.
func (s *Conn) Hello() Hello { return s.hello }

// Resizes delivers the terminal's newest size; it is closed when the
// client went away or the stream was closed.
func (s *Conn) Resizes() <-chan Size { return s.resizes }

// Read returns what the client typed, in order; io.EOF once it went away
// or the stream finished. Call it from one goroutine at a time.
func (s *Conn) Read(p []byte) (int, error) {
	if s.tty != nil {
		return s.Terminal().Read(p)
	}
	if len(s.pending) == 0 {
		chunk, ok := <-s.input
		if !ok {
			return 0, io.EOF
		}
		s.pending = chunk
	}
	n := copy(p, s.pending)
	s.pending = s.pending[n:]
	return n, nil
}

// Chunks is Read's input as the reader hands it over: one frame's bytes a
// receive, closed once the client went away (or Close). It is for a
// reader that waits on more than the stream at once (the server's input
// guard, which also waits out an ESC): it receives here itself, with no
// goroutine of its own to call Read, one hand-off less between a key and
// the model. A stream is read through Read, Chunks or Terminal, one of
// them; a client that handed its terminal over has no chunks (nil: a
// receive waits forever), its terminal is read through Terminal.
func (s *Conn) Chunks() <-chan []byte {
	if s.tty != nil {
		return nil
	}
	return s.input
}

// Write draws p on the client's terminal, in frames of at most
// MaxPayload. A client that takes nothing for writeTimeout is cut off:
// the write fails, the connection closes and Read returns io.EOF.
func (s *Conn) Write(p []byte) (int, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.finished {
		return 0, ErrFinished
	}
	if s.tty != nil {
		return s.writeTTY(p)
	}
	written := 0
	for len(p) > 0 {
		n := min(len(p), MaxPayload)
		if err := s.writeFrame(frameOutput, p[:n]); err != nil {
			return written, err
		}
		written += n
		p = p[n:]
	}
	return written, nil
}

// writeFrame writes one frame with one syscall (writev), the payload
// never copied. Called with wmu held.
func (s *Conn) writeFrame(t frameType, payload []byte) error {
	if s.werr != nil {
		return s.werr
	}
	var hdr [headerLen]byte
	putHeader(hdr[:], t, len(payload))
	_ = s.conn.SetWriteDeadline(time.Now().Add(s.writeTimeout)) // Best effort: without it a stalled client holds this writer.
	bufs := net.Buffers{hdr[:], payload}
	if _, err := bufs.WriteTo(s.conn); err != nil {
		s.werr = fmt.Errorf("write to %s: %w (it is cut off: it may attach again)", s.hello.Who, err)
		// Part of a frame may have gone out, so nothing more can follow:
		// close, which also ends the reader, so Read says io.EOF.
		_ = s.conn.Close() // Best effort: the client is gone either way.
		return s.werr
	}
	return nil
}

// Finish sends the client how the attachment ended, closes the stream and
// waits for its reader. Only the first call sends; later ones return
// ErrFinished.
func (s *Conn) Finish(e Exit) error {
	s.wmu.Lock()
	if s.finished {
		s.wmu.Unlock()
		return ErrFinished
	}
	s.finished = true
	if s.tty != nil {
		// The server reads and draws nothing more before the client
		// restores its terminal: Close waits for a read in progress.
		_ = s.tty.Close() // Best effort: it is done with either way.
	}
	err := s.writeFrame(frameExit, exitPayload(e))
	s.wmu.Unlock()
	s.Close()
	return err
}

// Finished reports whether Finish was called.
func (s *Conn) Finished() bool {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.finished
}

// Cut closes the connection at once, without waiting for anything: a
// write waiting for the client fails, and Read returns io.EOF. Close
// still has to be called.
func (s *Conn) Cut() {
	_ = s.conn.Close() // Best effort: the client is cut off either way.
	if s.tty != nil {
		_ = s.tty.Close() // Best effort: ends a read of it.
	}
}

// Close closes the connection without a word to the client (which says
// the server went away) and waits for the reader. It is idempotent.
func (s *Conn) Close() {
	s.closeOnce.Do(func() {
		close(s.done)
		_ = s.conn.Close() // Best effort: ends the reader's read; the stream is over.
		if s.tty != nil {
			_ = s.tty.Close() // Best effort: ends a read of it.
		}
	})
	s.reader.Wait()
}

// exitCodeFailed is the Exit.Code of a client whose UI failed on the
// server.
const exitCodeFailed = 1

// Attacher runs one attached client's UI over st until it detaches or the
// server quits, having called st.Finish (server.Server's Attach).
type Attacher interface {
	Attach(ctx context.Context, st Stream) error
}

// Handoff is the control.Attacher of a server whose terminals attach
// over its socket: it answers each attach request and runs Attacher over
// the connection's stream.
type Handoff struct {
	Attacher Attacher
	// Log, if set, hears of each refused attach and each failed UI.
	Log func(error)
}

var _ control.Attacher = Handoff{}

// AttachConn answers req on c and runs h.Attacher over it. An Attach that
// returns without finishing the stream has its error sent to the client
// as a detach with status 1 (or, when the server is stopping, an exit
// saying so), so the client says why instead of "the server went away".
func (h Handoff) AttachConn(ctx context.Context, c *net.UnixConn, buffered []byte, req control.Request) {
	st, err := NewConn(c, buffered, req)
	if err != nil {
		h.log(err)
		return
	}
	defer st.Close()
	err = h.Attacher.Attach(ctx, st)
	if err != nil {
		h.log(fmt.Errorf("%s: %w", st.hello.Who, err))
	}
	if st.Finished() {
		return
	}
	e := Exit{Detached: true, Code: exitCodeFailed, Summary: "sandmux: the server could not run this client"}
	switch {
	case ctx.Err() != nil:
		// The control server is stopping and will close c: say so if
		// the client can still hear it.
		e = Exit{Code: exitCodeFailed, Summary: "sandmux: the server stopped"}
	case err != nil:
		e.Summary += ": " + termsafe.String(err.Error())
	}
	e.Summary += "\n"
	_ = st.Finish(e) // Best effort: the client may be gone.
}

func (h Handoff) log(err error) {
	if h.Log != nil {
		h.Log(err)
	}
}

// Compile-time: Conn is a Stream.
var _ Stream = (*Conn)(nil)
