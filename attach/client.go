package attach

// The client's end of the local wire:
//
//	terminal ──read──▶ pumpInput ──'i' frames──▶ server
//	SIGWINCH ──▶ watchSize ──'r' frames──▶ server
//	SIGHUP, SIGTERM, SIGINT, ctx ──▶ watchHangup closes the connection (never behind a blocked write)
//	server ──'o' frames──▶ pumpOutput (RunClient's goroutine) ──write──▶ terminal;  'x' ends it
//
// Nothing on either path waits for more bytes or a timer: a key is sent
// as soon as it is read and output written as soon as its frame is.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"sync"
	"syscall"

	"github.com/charmbracelet/x/term"
	"github.com/muesli/cancelreader"

	"github.com/sandmux/sandmux/control"
	"github.com/sandmux/sandmux/termsafe"
)

// ErrServerGone means the server closed the connection without saying how
// the attachment ended.
var ErrServerGone = errors.New("the server went away without saying how the attachment ended: it may have crashed or cut this client off (its log is under $XDG_STATE_HOME/sandmux/); run `sandmux attach` to try again")

// inputChunk is the most one read of the terminal takes: a key press is
// a few bytes, a paste comes in pieces this large.
const inputChunk = 32 << 10

// fallbackSize is the size a client says it has when out is no terminal.
var fallbackSize = Size{Width: 80, Height: 24}

// resetModes undoes the modes the server's UI sets on a terminal (the
// alternate screen, mouse and focus reports, bracketed paste, a hidden
// cursor), for when the server went away before it could undo them.
const resetModes = "\x1b[?2004l\x1b[?1004l\x1b[?1006l\x1b[?1002l\x1b[m\x1b[?25h\x1b[0 q\x1b[?1049l"

// ClientOption adjusts RunClient.
type ClientOption func(*clientConfig)

type clientConfig struct {
	resize <-chan struct{} // nil: SIGWINCH
	out    io.Writer       // nil: the out file
}

// WithResizeTrigger makes RunClient read out's size each time ch
// delivers, instead of on SIGWINCH.
func WithResizeTrigger(ch <-chan struct{}) ClientOption {
	return func(c *clientConfig) { c.resize = ch }
}

// RunClient attaches the terminal in/out over conn, a connection to a
// server's socket, until the server ends the attachment, and returns the
// Exit it sent. It puts in into raw mode and always restores it, however
// the attachment ends, panics in the relay included. hello.Size, when
// zero, is read from out; Who is the server's to fill.
//
// SIGHUP, SIGTERM, SIGINT or ctx ending close the connection and return
// Exit{Detached: true}: what a hangup means is the server's call. So
// does the terminal going away. A server that closes the connection
// without an exit frame is ErrServerGone. in and out must not be nil.
func RunClient(ctx context.Context, conn net.Conn, in, out *os.File, hello Hello, opts ...ClientOption) (exit Exit, err error) {
	var cfg clientConfig
	for _, o := range opts {
		o(&cfg)
	}
	defer conn.Close() // Best effort: the attachment is over either way.
	if hello.Size == (Size{}) {
		hello.Size = sizeOf(out, fallbackSize)
	}
	br := bufio.NewReaderSize(conn, 64<<10)
	if err := handshake(ctx, conn, br, hello); err != nil {
		return Exit{}, err
	}
	// Until now a signal may kill the client as it would any program:
	// the terminal is as it was. From raw mode on, it must be restored.
	hangups := make(chan os.Signal, 2)
	// SIGINT too: a raw terminal's keys cannot send it, but `kill -INT`
	// must not leave the terminal raw.
	signal.Notify(hangups, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(hangups)
	var winch chan os.Signal // stays nil when the trigger is injected
	if cfg.resize == nil {
		winch = make(chan os.Signal, 1)
		signal.Notify(winch, syscall.SIGWINCH)
		defer signal.Stop(winch)
	}
	restore, err := makeRaw(in)
	if err != nil {
		return Exit{}, err
	}
	defer func() { err = errors.Join(err, restore()) }()

	c := &client{
		conn:     conn,
		frames:   &frameReader{r: br},
		out:      cfg.out,
		sizeOf:   func() Size { return sizeOf(out, Size{}) },
		lastSize: hello.Size,
		resize:   cfg.resize,
		winch:    winch,
		hangups:  hangups,
	}
	if c.out == nil {
		c.out = out
	}
	return c.run(ctx, in)
}

// sizeOf is f's terminal size, or def when it has none.
func sizeOf(f *os.File, def Size) Size {
	if f == nil {
		return def
	}
	w, h, err := term.GetSize(f.Fd())
	if err != nil || checkSize(Size{Width: w, Height: h}) != nil {
		return def
	}
	return Size{Width: w, Height: h}
}

// makeRaw puts in into raw mode when it is a terminal and returns what
// restores it.
func makeRaw(in *os.File) (func() error, error) {
	if in == nil || !term.IsTerminal(in.Fd()) {
		return func() error { return nil }, nil
	}
	st, err := term.MakeRaw(in.Fd())
	if err != nil {
		return nil, fmt.Errorf("put the terminal in raw mode: %w", err)
	}
	return func() error {
		if err := term.Restore(in.Fd(), st); err != nil {
			return fmt.Errorf("restore the terminal: %w (run `stty sane` to fix it)", err)
		}
		return nil
	}, nil
}

// handshake asks to attach and reads the server's answer; frames follow
// it, so br is read on from there.
func handshake(ctx context.Context, conn net.Conn, br *bufio.Reader, hello Hello) error {
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() }) // Best effort: unblocks the handshake.
	defer stop()
	req := control.Request{
		V: control.Version, Op: control.OpAttach,
		Width: hello.Size.Width, Height: hello.Size.Height,
		ReadOnly: hello.ReadOnly, Term: hello.Term, ColorTerm: hello.ColorTerm, Cwd: hello.Dir,
	}
	werr := control.Encode(conn, req)
	err := werr
	var line []byte
	if werr == nil || hungUp(werr) {
		// A server refusing the connection (another user, too many
		// connections) writes why and hangs up, maybe before the request
		// went out: its reason is still there to read.
		if line, err = br.ReadSlice('\n'); err != nil && werr != nil {
			err = werr
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("attach: %w", context.Cause(ctx))
		}
		return fmt.Errorf("attach: %w (is the server still running?)", err)
	}
	var rep control.Reply
	if err := json.Unmarshal(line, &rep); err != nil {
		return fmt.Errorf("attach: the server's answer is unreadable (%w): use the same sandmux for client and server", err)
	}
	if rep.V != control.Version {
		return fmt.Errorf("attach: the server speaks protocol version %d, this sandmux %d: use the same sandmux for both", rep.V, control.Version)
	}
	if !rep.OK {
		return fmt.Errorf("attach: the server refused: %s", termsafe.String(rep.Error))
	}
	return nil
}

// hungUp reports whether a write failed because the peer closed.
func hungUp(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET)
}

// client relays one attached terminal.
type client struct {
	conn    net.Conn
	frames  *frameReader
	out     io.Writer
	sizeOf  func() Size
	resize  <-chan struct{}
	winch   <-chan os.Signal
	hangups <-chan os.Signal

	wmu      sync.Mutex // one frame at a time, from pumpInput and watchSize
	lastSize Size       // owned by watchSize: the size the server last heard

	mu      sync.Mutex
	stopped bool  // this side ended the attachment
	failure error // a panic in the relay

	drewSome bool // owned by RunClient's goroutine: the server drew on the terminal
}

// run relays until the server's exit frame, this side's end or the
// connection's, then stops every goroutine it started and says how the
// attachment ended.
func (c *client) run(ctx context.Context, in *os.File) (Exit, error) {
	input, inTerminal := cancelable(in)
	defer input.Close() // Best effort: releases the epoll and its pipe.
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { c.guard(func() { c.pumpInput(input, inTerminal) }) })
	wg.Go(func() { c.guard(func() { c.watchHangup(ctx, done) }) })
	wg.Go(func() { c.guard(func() { c.watchSize(done) }) })

	exit, gotExit, readErr := c.guardedOutput()
	close(done)
	input.Cancel()
	_ = c.conn.Close() // Best effort: unblocks pumpInput's write.
	wg.Wait()

	if !gotExit && c.drewSome {
		c.guard(func() {
			_, _ = io.WriteString(c.out, resetModes) // Best effort: the server could not undo its modes.
		})
	}
	c.mu.Lock()
	stopped, failure := c.stopped, c.failure
	c.mu.Unlock()
	if gotExit {
		return exit, failure
	}
	switch {
	case failure != nil:
		return Exit{}, failure
	case stopped:
		return Exit{Detached: true}, nil
	case readErr == nil, errors.Is(readErr, io.EOF), errors.Is(readErr, io.ErrUnexpectedEOF), errors.Is(readErr, syscall.ECONNRESET):
		return Exit{}, ErrServerGone
	default:
		return Exit{}, fmt.Errorf("attach: %w (use the same sandmux for client and server)", readErr)
	}
}

// cancelable wraps in so that a blocked read can be ended. Input that
// epoll cannot watch (a regular file, /dev/null) never blocks a read for
// long, so it is read as it is.
func cancelable(in *os.File) (cancelreader.CancelReader, bool) {
	r, err := cancelreader.NewReader(in)
	if err != nil {
		return plainReader{in}, false
	}
	return r, term.IsTerminal(in.Fd())
}

// plainReader is input whose reads end by themselves.
type plainReader struct{ io.Reader }

func (plainReader) Cancel() bool { return false }
func (plainReader) Close() error { return nil }

// stop ends the attachment from this side: failure is a panic, nil a
// hangup. Closing the connection ends pumpOutput's read.
func (c *client) stop(failure error) {
	c.mu.Lock()
	if !c.stopped {
		c.stopped, c.failure = true, failure
	}
	c.mu.Unlock()
	_ = c.conn.Close() // Best effort: the attachment is over either way.
}

// guard turns a panic in f into the attachment's failure, so that
// RunClient still restores the terminal and returns.
func (c *client) guard(f func()) {
	defer func() {
		if r := recover(); r != nil {
			c.stop(fmt.Errorf("attach: relay panicked: %v\n%s", r, debug.Stack()))
		}
	}()
	f()
}

func (c *client) guardedOutput() (exit Exit, gotExit bool, err error) {
	c.guard(func() { exit, gotExit, err = c.pumpOutput() })
	return exit, gotExit, err
}

// pumpInput sends what the terminal gives, one frame per read, header and
// bytes in one write. The terminal ending is a hangup; input that is no
// terminal may simply end.
func (c *client) pumpInput(in io.Reader, inTerminal bool) {
	buf := make([]byte, headerLen+inputChunk)
	for {
		n, err := in.Read(buf[headerLen:])
		if n > 0 {
			putHeader(buf, frameInput, n)
			c.wmu.Lock()
			_, werr := c.conn.Write(buf[:headerLen+n])
			c.wmu.Unlock()
			if werr != nil {
				return // the connection ended: pumpOutput says how
			}
		}
		switch {
		case err == nil:
		case errors.Is(err, cancelreader.ErrCanceled):
			return
		case inTerminal || !errors.Is(err, io.EOF):
			c.stop(nil)
			return
		default:
			return
		}
	}
}

// watchHangup ends the attachment on SIGHUP, SIGTERM, SIGINT or ctx, until
// done. It writes nothing, so a stalled server cannot keep it from
// closing the connection.
func (c *client) watchHangup(ctx context.Context, done <-chan struct{}) {
	select {
	case <-done:
	case <-ctx.Done():
		c.stop(nil)
	case <-c.hangups:
		c.stop(nil)
	}
}

// watchSize sends the terminal's size each time it may have changed,
// until done.
func (c *client) watchSize(done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		case <-c.winch:
			c.sendSize()
		case <-c.resize:
			c.sendSize()
		}
	}
}

func (c *client) sendSize() {
	sz := c.sizeOf()
	if sz == (Size{}) || sz == c.lastSize {
		return
	}
	c.lastSize = sz
	frame := appendFrame(nil, frameResize, resizePayload(sz))
	c.wmu.Lock()
	_, _ = c.conn.Write(frame) // Best effort: a failed write ended the connection, and pumpOutput says how.
	c.wmu.Unlock()
}

// pumpOutput writes the server's output as each frame arrives, until its
// exit frame or the connection's end.
func (c *client) pumpOutput() (Exit, bool, error) {
	for {
		t, p, err := c.frames.next()
		if err != nil {
			return Exit{}, false, err
		}
		switch t {
		case frameOutput:
			c.drewSome = true
			if _, err := c.out.Write(p); err != nil {
				c.stop(nil) // the terminal went away
				return Exit{}, false, nil
			}
		case frameExit:
			e, err := decodeExit(p)
			return e, err == nil, err
		default:
			return Exit{}, false, fmt.Errorf("%w: a %q frame, which only a client sends", errFrame, byte(t))
		}
	}
}
