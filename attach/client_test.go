package attach

import (
	"context"
	"errors"
	"io"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/creack/pty"
)

// termState is the tty's termios now.
func termState(t *testing.T, p *ptyTerm) term.State {
	t.Helper()
	st, err := term.GetState(p.tty.Fd())
	if err != nil {
		t.Fatal(err)
	}
	return *st
}

// A whole attachment through a real socket and a real PTY: the hello,
// typed bytes in order, drawn bytes, a resize, and the exit frame, with
// the terminal raw while attached and restored after.
func TestAttachmentEndToEnd(t *testing.T) {
	path, fs := serve(t)
	p := openPTY(t)
	before := termState(t, p)
	resize := make(chan struct{})
	res := startClient(t, t.Context(), path, p, Hello{Term: "xterm-256color", ColorTerm: "truecolor", Dir: "/srv/work"}, WithResizeTrigger(resize))
	a := fs.next(t)

	h := a.Hello()
	if h.Size != (Size{80, 24}) || h.Term != "xterm-256color" || h.ColorTerm != "truecolor" || h.Dir != "/srv/work" || h.ReadOnly || !strings.HasPrefix(h.Who, "local pid ") {
		t.Errorf("hello %+v: want the PTY's 80x24, the terms, and the client's pid", h)
	}

	waitRaw(t, p, a)
	// Every byte value, in order, more than the PTY buffers at once.
	typed := make([]byte, 64<<10)
	for i := range typed {
		typed[i] = byte(i * 7)
	}
	go func() { _, _ = p.ptmx.Write(typed) }() // Best effort: a failure shows as missing input below.
	if got := readN(t, a, len(typed)); string(got) != string(typed) {
		t.Fatalf("input differs from what was typed (first %q)", got[:16])
	}
	if raw := termState(t, p); raw == before {
		t.Error("the terminal is not in raw mode while attached")
	}

	if _, err := a.Write([]byte("\x1b[Hdrawn")); err != nil {
		t.Fatal(err)
	}
	p.waitShown(t, "\x1b[Hdrawn")

	if err := pty.Setsize(p.ptmx, &pty.Winsize{Cols: 132, Rows: 43}); err != nil {
		t.Fatal(err)
	}
	resize <- struct{}{}
	if sz := <-a.Resizes(); sz != (Size{132, 43}) {
		t.Errorf("resize %v, want 132x43", sz)
	}

	if err := a.Finish(Exit{Code: 3, Summary: "web: exited 3\n"}); err != nil {
		t.Errorf("Finish: %v", err)
	}
	a.ret <- nil
	r := wait(t, res)
	if r.err != nil || r.exit != (Exit{Code: 3, Summary: "web: exited 3\n"}) {
		t.Errorf("RunClient = %+v, %v; want the exit frame's", r.exit, r.err)
	}
	if after := termState(t, p); after != before {
		t.Error("the terminal was not restored")
	}
	if _, err := a.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("Read after Finish: %v, want io.EOF", err)
	}
	if _, err := a.Write([]byte("x")); !errors.Is(err, ErrFinished) {
		t.Errorf("Write after Finish: %v, want ErrFinished", err)
	}
}

// The real SIGWINCH path: the size is read from the terminal on the
// signal.
func TestSIGWINCHSendsSize(t *testing.T) {
	path, fs := serve(t)
	p := openPTY(t)
	res := startClient(t, t.Context(), path, p, Hello{})
	a := fs.next(t)
	typeAndSee(t, p, a) // the client now watches its signals
	if err := pty.Setsize(p.ptmx, &pty.Winsize{Cols: 100, Rows: 30}); err != nil {
		t.Fatal(err)
	}
	// The PTY is not this process's controlling terminal, so the kernel
	// signals nobody: send the signal it would.
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGWINCH); err != nil {
		t.Fatal(err)
	}
	if sz := <-a.Resizes(); sz != (Size{100, 30}) {
		t.Errorf("resize %v, want 100x30", sz)
	}
	_ = a.Finish(Exit{Detached: true})
	a.ret <- nil
	if r := wait(t, res); r.err != nil || !r.exit.Detached {
		t.Errorf("RunClient = %+v, %v", r.exit, r.err)
	}
}

// waitRaw returns once the client's terminal is raw: the client draws
// only after it made it so. Bytes typed before would be cooked.
func waitRaw(t *testing.T, p *ptyTerm, a *attached) {
	t.Helper()
	if _, err := a.Write([]byte("ready")); err != nil {
		t.Fatal(err)
	}
	p.waitShown(t, "ready")
}

// typeAndSee types a key and waits for it on the server: the relay runs
// and the client watches its signals.
func typeAndSee(t *testing.T, p *ptyTerm, a *attached) {
	t.Helper()
	waitRaw(t, p, a)
	if _, err := p.ptmx.Write([]byte("k")); err != nil {
		t.Fatal(err)
	}
	if got := readN(t, a, 1); string(got) != "k" {
		t.Fatalf("typed k, the server read %q", got)
	}
}

// SIGHUP, SIGTERM or SIGINT to the client ends it as detached, the terminal
// restored; the server sees the client go.
func TestHangupDetaches(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			path, fs := serve(t)
			p := openPTY(t)
			before := termState(t, p)
			res := startClient(t, t.Context(), path, p, Hello{})
			a := fs.next(t)
			typeAndSee(t, p, a)
			if _, err := a.Write([]byte("frame")); err != nil {
				t.Fatal(err)
			}
			p.waitShown(t, "frame")
			if err := syscall.Kill(syscall.Getpid(), sig); err != nil {
				t.Fatal(err)
			}
			r := wait(t, res)
			if r.err != nil || r.exit != (Exit{Detached: true}) {
				t.Errorf("RunClient after %v = %+v, %v; want detached", sig, r.exit, r.err)
			}
			if termState(t, p) != before {
				t.Error("the terminal was not restored")
			}
			p.waitShown(t, resetModes) // the server could not undo its modes
			if n, err := a.Read(make([]byte, 1)); err != io.EOF {
				t.Errorf("server Read after the hangup: %d, %v; want io.EOF", n, err)
			}
			waitClosed(t, a.Resizes())
			a.ret <- nil
		})
	}
}

// ctx ending detaches too.
func TestContextEndDetaches(t *testing.T) {
	path, fs := serve(t)
	p := openPTY(t)
	ctx, cancel := context.WithCancel(t.Context())
	res := startClient(t, ctx, path, p, Hello{})
	a := fs.next(t)
	typeAndSee(t, p, a)
	cancel()
	if r := wait(t, res); r.err != nil || r.exit != (Exit{Detached: true}) {
		t.Errorf("RunClient after ctx ended = %+v, %v", r.exit, r.err)
	}
	a.ret <- nil
}

// A server that closes without an exit frame is a clear error, and the
// terminal is restored.
func TestServerGoneAbruptly(t *testing.T) {
	path, fs := serve(t)
	p := openPTY(t)
	before := termState(t, p)
	res := startClient(t, t.Context(), path, p, Hello{})
	a := fs.next(t)
	if _, err := a.Write([]byte("\x1b[?1049hscreen")); err != nil {
		t.Fatal(err)
	}
	p.waitShown(t, "screen")
	a.Close()
	r := wait(t, res)
	if !errors.Is(r.err, ErrServerGone) || !strings.Contains(r.err.Error(), "went away") {
		t.Errorf("RunClient = %+v, %v; want ErrServerGone", r.exit, r.err)
	}
	if termState(t, p) != before {
		t.Error("the terminal was not restored")
	}
	p.waitShown(t, resetModes)
	a.ret <- nil
}

// An Attach that fails without finishing tells the client why.
func TestAttachErrorReachesClient(t *testing.T) {
	path, fs := serve(t)
	p := openPTY(t)
	res := startClient(t, t.Context(), path, p, Hello{})
	a := fs.next(t)
	a.ret <- errors.New("no room for \x1b[31m you")
	r := wait(t, res)
	if r.err != nil || !r.exit.Detached || r.exit.Code != exitCodeFailed || !strings.Contains(r.exit.Summary, `no room for \x1b[31m you`) {
		t.Errorf("RunClient = %+v, %v; want a detach with status 1 saying why, escaped", r.exit, r.err)
	}
}

// A refused hello is an error before the terminal is touched.
func TestRefusedHello(t *testing.T) {
	path, _ := serve(t)
	p := openPTY(t)
	res := startClient(t, t.Context(), path, p, Hello{Term: "xterm\x1b]0;pwned\x07"})
	r := wait(t, res)
	if r.err == nil || !strings.Contains(r.err.Error(), "refused") || strings.Contains(r.err.Error(), "\x1b") {
		t.Errorf("RunClient with a hostile $TERM = %v; want a refusal, escaped", r.err)
	}
}

// panicWriter is a terminal whose write panics.
type panicWriter struct{}

func (panicWriter) Write([]byte) (int, error) { panic("terminal exploded") }

// A panic in the relay ends the attachment with an error, the terminal
// restored, and the server sees the client go.
func TestRelayPanicRestoresTerminal(t *testing.T) {
	path, fs := serve(t)
	p := openPTY(t)
	before := termState(t, p)
	res := startClient(t, t.Context(), path, p, Hello{}, func(c *clientConfig) { c.out = panicWriter{} })
	a := fs.next(t)
	if _, err := a.Write([]byte("boom")); err != nil {
		t.Fatal(err)
	}
	r := wait(t, res)
	if r.err == nil || !strings.Contains(r.err.Error(), "panicked: terminal exploded") {
		t.Errorf("RunClient = %v; want the panic as an error", r.err)
	}
	if termState(t, p) != before {
		t.Error("the terminal was not restored after a panic")
	}
	if _, err := a.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("server Read: %v, want io.EOF", err)
	}
	a.ret <- nil
}

// The server stopping while a client is attached ends its Attach, closes
// the connection (Serve waits for the handoff), and the client says the
// server went away.
func TestServerStopEndsAttachment(t *testing.T) {
	path, fs, stop := serveStoppable(t)
	p := openPTY(t)
	before := termState(t, p)
	res := startClient(t, t.Context(), path, p, Hello{})
	a := fs.next(t)
	typeAndSee(t, p, a)
	stop() // returns only once the handoff returned
	if _, err := a.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("server Read after the stop: %v, want io.EOF", err)
	}
	// The connection closes as the handoff says the server stopped:
	// the client hears one or the other.
	r := wait(t, res)
	told := r.err == nil && r.exit == Exit{Code: exitCodeFailed, Summary: "sandmux: the server stopped\n"}
	if !told && !errors.Is(r.err, ErrServerGone) {
		t.Errorf("RunClient after the server stopped = %+v, %v; want ErrServerGone or the stop", r.exit, r.err)
	}
	if termState(t, p) != before {
		t.Error("the terminal was not restored")
	}
}

// A client that ends before it settled never calls WithSettled's
// function, and leaves nothing of it running.
func TestNotSettledWhenEndedFirst(t *testing.T) {
	path, fs := serve(t)
	p := openPTY(t)
	settled := make(chan struct{}, 1)
	res := startClient(t, t.Context(), path, p, Hello{Term: "xterm"},
		WithSettled(func(bool) { settled <- struct{}{} }),
		func(c *clientConfig) { c.settleAfter = time.Hour })
	a := fs.next(t)
	endAttachment(t, a, res)
	if len(settled) != 0 {
		t.Error("settled ran though the attachment ended first")
	}
}

// WithSettled's function runs once the attachment ran a while, the
// terminal raw, and not again.
func TestSettledOnceAttached(t *testing.T) {
	path, fs := serve(t)
	p := openPTY(t)
	before := termState(t, p)
	settled := make(chan term.State, 2)
	res := startClient(t, t.Context(), path, p, Hello{Term: "xterm"}, WithSettled(func(bool) {
		st, err := term.GetState(p.tty.Fd())
		if err != nil {
			st = &term.State{} // not raw, and the test says so
		}
		settled <- *st
	}))
	a := fs.next(t)
	select {
	case st := <-settled:
		if st == before {
			t.Error("settled ran before the terminal was raw")
		}
	case <-time.After(failsafe):
		t.Fatal("settled never ran")
	}
	endAttachment(t, a, res)
	if len(settled) != 0 {
		t.Error("settled ran more than once")
	}
}

// endAttachment finishes a with a plain exit and waits for RunClient to
// return it.
func endAttachment(t *testing.T, a *attached, res <-chan result) {
	t.Helper()
	if err := a.Finish(Exit{}); err != nil {
		t.Errorf("Finish: %v", err)
	}
	a.ret <- nil
	if r := wait(t, res); r.err != nil {
		t.Errorf("RunClient = %+v, %v", r.exit, r.err)
	}
}
