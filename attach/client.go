package attach

// The client's end of the local wire:
//
//	terminal ──read──▶ tty.Pump ─► sendInput ──'i' frames──▶ server
//	SIGWINCH ──▶ tty.SizeFollower ─► sendSize ──'r' frames──▶ server
//	SIGHUP, SIGTERM, SIGINT, ctx ──▶ watchHangup closes the connection (never behind a blocked write)
//	server ──'o' frames──▶ pumpOutput (RunClient's goroutine) ──write──▶ terminal;  'x' ends it
//
// A client whose input and output are one terminal hands it to the
// server instead (passtty.go): then no pump runs here, and the wire
// carries only the sizes and the 'x' frame.
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
	"time"

	"github.com/sandmux/sandmux/control"
	"github.com/sandmux/sandmux/termsafe"
	"github.com/sandmux/sandmux/tty"
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
	resize  <-chan struct{}       // nil: SIGWINCH
	out     io.Writer             // nil: the out file
	settled func(handedOver bool) // nil: nothing
	// settleAfter: how long before settled; 0 is settleAfter (a test
	// of the package waits longer).
	settleAfter time.Duration
}

// WithSettled makes RunClient call settled once the attachment has run
// for settleAfter (the terminal raw, handed over or relayed from then
// on), unless it ended first: what the client did only to get there is
// behind it, and so is what the relay did once as it began (its
// goroutines started, their stacks grown, the first frame read), which
// would otherwise take back at once what settled let go of. settled is
// told whether the terminal was handed over: the client then only waits,
// and allocates nothing more.
func WithSettled(settled func(handedOver bool)) ClientOption {
	return func(c *clientConfig) { c.settled = settled }
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
	var handed *os.File // this terminal opened anew, for the server
	uc, isUnix := conn.(*net.UnixConn)
	if isUnix && cfg.out == nil {
		if handed = openPassable(in, out); handed != nil {
			defer handed.Close() // the server holds its own once it was sent
		}
	}
	br := bufio.NewReaderSize(conn, 64<<10)
	if err := handshake(ctx, conn, br, hello, handed != nil); err != nil {
		return Exit{}, err
	}
	// Until now a signal may kill the client as it would any program:
	// the terminal is as it was. From raw mode on, it must be restored.
	hangups := make(chan os.Signal, 2)
	// SIGINT too: a raw terminal's keys cannot send it, but `kill -INT`
	// must not leave the terminal raw.
	signal.Notify(hangups, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(hangups)
	c := &client{conn: conn, frames: &frameReader{r: br}, out: cfg.out, hangups: hangups}
	if c.out == nil {
		c.out = out
	}
	// Followed from here, before raw mode, so that no change is missed.
	sizes := tty.FollowSize(out, hello.Size.Width, hello.Size.Height, cfg.resize, func(w, h int) {
		c.guard(func() { c.sendSize(Size{Width: w, Height: h}) })
	})
	defer sizes.Stop()
	restore, err := tty.MakeRaw(in)
	if err != nil {
		return Exit{}, err
	}
	defer func() { err = errors.Join(err, restore()) }()
	if handed != nil {
		// Raw first: the server reads and draws it from now on.
		if err := sendTTY(uc, handed); err != nil {
			return Exit{}, err
		}
		c.handedOver = true
	}
	c.settled, c.settleAfter = cfg.settled, cfg.settleAfter
	if c.settleAfter == 0 {
		c.settleAfter = settleAfter
	}
	return c.run(ctx, in, sizes)
}

// settleAfter is how long an attachment runs before WithSettled's
// function: the relay's one-off work takes milliseconds; a second is
// far past it and nothing a person waits for.
const settleAfter = time.Second

// sizeOf is f's terminal size, or def when it has none.
func sizeOf(f *os.File, def Size) Size {
	w, h, ok := tty.Size(f)
	if !ok || checkSize(Size{Width: w, Height: h}) != nil {
		return def
	}
	return Size{Width: w, Height: h}
}

// handshake asks to attach and reads the server's answer; frames follow
// it, so br is read on from there.
func handshake(ctx context.Context, conn net.Conn, br *bufio.Reader, hello Hello, passTTY bool) error {
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() }) // Best effort: unblocks the handshake.
	defer stop()
	req := control.Request{
		V: control.Version, Op: control.OpAttach,
		Width: hello.Size.Width, Height: hello.Size.Height,
		ReadOnly: hello.ReadOnly, Term: hello.Term, ColorTerm: hello.ColorTerm, Cwd: hello.Dir,
		TTY: passTTY,
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
	hangups <-chan os.Signal

	wmu sync.Mutex // one frame at a time, from the input pump and the size follower

	mu      sync.Mutex
	stopped bool  // this side ended the attachment
	failure error // a panic in the relay

	drewSome bool // owned by RunClient's goroutine: the server drew on the terminal
	// handedOver: the server reads and draws the terminal itself; this
	// side pumps no input (set before run).
	handedOver  bool
	settled     func(handedOver bool) // WithSettled's, or nil (set before run)
	settleAfter time.Duration
}

// settleLater calls settled once the attachment ran c.settleAfter,
// unless done closed first.
func (c *client) settleLater(done <-chan struct{}) {
	t := time.NewTimer(c.settleAfter)
	defer t.Stop()
	select {
	case <-t.C:
		c.guard(func() { c.settled(c.handedOver) })
	case <-done:
	}
}

// run relays until the server's exit frame, this side's end or the
// connection's, then stops every goroutine it started (and sizes) and
// says how the attachment ended.
func (c *client) run(ctx context.Context, in *os.File, sizes *tty.SizeFollower) (Exit, error) {
	var input *tty.Pump
	if c.handedOver {
		c.drewSome = true // by the server, straight on the terminal
	} else {
		inTerminal := tty.IsTerminal(in)
		frame := make([]byte, headerLen+inputChunk)
		input = tty.StartPump(in, inputChunk, func(b []byte) error { return c.sendInput(frame, b) },
			func(why error) { c.inputEnded(why, inTerminal) })
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { c.guard(func() { c.watchHangup(ctx, done) }) })
	if c.settled != nil {
		wg.Go(func() { c.settleLater(done) })
	}

	exit, gotExit, readErr := c.guardedOutput()
	close(done)
	_ = c.conn.Close() // Best effort: unblocks the pump's write.
	if input != nil {
		input.Stop()
	}
	sizes.Stop()
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

// errConnEnded stops the input pump when a frame could not be written:
// the connection ended, and pumpOutput says how.
var errConnEnded = errors.New("the connection ended")

// sendInput sends what one read of the terminal gave as one frame,
// header and bytes in one write; frame is the pump's own buffer.
func (c *client) sendInput(frame, b []byte) (err error) {
	c.guard(func() {
		n := copy(frame[headerLen:], b)
		putHeader(frame, frameInput, n)
		c.wmu.Lock()
		_, werr := c.conn.Write(frame[:headerLen+n])
		c.wmu.Unlock()
		if werr != nil {
			err = errConnEnded
		}
	})
	return err
}

// inputEnded is the end of the terminal's input: a terminal ending is a
// hangup; input that is no terminal may simply end.
func (c *client) inputEnded(why error, inTerminal bool) {
	switch {
	case errors.Is(why, tty.ErrStopped), errors.Is(why, errConnEnded):
	case inTerminal || !errors.Is(why, io.EOF):
		c.stop(nil)
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

// sendSize tells the server the terminal's new size.
func (c *client) sendSize(sz Size) {
	if checkSize(sz) != nil {
		return // no size a server takes
	}
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
