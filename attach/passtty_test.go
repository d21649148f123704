package attach

import (
	"io"
	"os"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/sandmux/sandmux/control"
	"github.com/sandmux/sandmux/endpoint"
)

// fdFlags is F_GETFL of f: the open file's status flags.
func fdFlags(t *testing.T, f *os.File) int {
	t.Helper()
	fl, err := unix.FcntlInt(f.Fd(), unix.F_GETFL, 0)
	if err != nil {
		t.Fatal(err)
	}
	return fl
}

// controlFlags is F_GETFL of f, read without f.Fd (which makes a file
// blocking).
func controlFlags(t *testing.T, f *os.File) int {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var fl int
	var ferr error
	if err := rc.Control(func(fd uintptr) { fl, ferr = unix.FcntlInt(fd, unix.F_GETFL, 0) }); err != nil || ferr != nil {
		t.Fatal(err, ferr)
	}
	return fl
}

// A client on a terminal hands it over: the server reads the keys and
// draws on it itself, through an open file of its own (the client's
// standard input never turns non-blocking) that no child inherits; and
// once the attachment ended the server reads nothing more, so a key
// typed then waits in the terminal for the shell.
func TestTerminalHandedOver(t *testing.T) {
	path, fs := serve(t)
	p := openPTY(t)
	before := termState(t, p)
	res := startClient(t, t.Context(), path, p, Hello{})
	a := fs.next(t)
	if a.tty == nil {
		t.Fatal("a client on a terminal relayed it instead of handing it over")
	}
	typeAndSee(t, p, a)
	if fdFlags(t, p.tty)&unix.O_NONBLOCK != 0 {
		t.Error("the client's own terminal file turned non-blocking")
	}
	if fl, err := unix.FcntlInt(a.tty.Fd(), unix.F_GETFD, 0); err != nil || fl&unix.FD_CLOEXEC == 0 {
		t.Errorf("the server's terminal descriptor flags %#x, %v: a pane's child would inherit it", fl, err)
	}
	if _, err := a.Write([]byte("\x1b[Hstraight")); err != nil {
		t.Fatal(err)
	}
	p.waitShown(t, "\x1b[Hstraight")
	// A frame with an echo is written at once by its Update (WriteNow),
	// and the server's terminal file stays non-blocking for its reads.
	if n, ok := a.WriteNow([]byte("\x1b[Hat once")); !ok || n != len("\x1b[Hat once") {
		t.Errorf("WriteNow on a handed terminal = %d, %v; want all of it written", n, ok)
	}
	p.waitShown(t, "\x1b[Hat once")
	if fl := controlFlags(t, a.tty); fl&unix.O_NONBLOCK == 0 {
		t.Error("the server's terminal file turned blocking after WriteNow")
	}

	if err := a.Finish(Exit{Detached: true}); err != nil {
		t.Errorf("Finish: %v", err)
	}
	a.ret <- nil
	if r := wait(t, res); r.err != nil || !r.exit.Detached {
		t.Errorf("RunClient = %+v, %v", r.exit, r.err)
	}
	if termState(t, p) != before {
		t.Error("the terminal was not restored")
	}
	// Cooked again: a line typed now is the shell's, not the server's.
	if _, err := p.ptmx.Write([]byte("after\n")); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	go func() {
		b := make([]byte, 64)
		n, _ := p.tty.Read(b)
		got <- string(b[:n])
	}()
	select {
	case s := <-got:
		if s != "after\n" {
			t.Errorf("the terminal's next reader got %q, want the line typed after the detach", s)
		}
	case <-time.After(failsafe):
		t.Fatal("the line typed after the detach never reached the terminal's next reader")
	}
}

// The terminal going away (its emulator closed) ends the server's input
// even while the client lingers.
func TestHandedTerminalHangupEndsInput(t *testing.T) {
	path, fs := serve(t)
	// No reader on the master: a Read blocked in it would keep Close
	// from closing it (pty.Open leaves it blocking).
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	defer ptmx.Close()
	p := &ptyTerm{ptmx: ptmx, tty: tty}
	res := startClient(t, t.Context(), path, p, Hello{Size: Size{Width: 80, Height: 24}})
	a := fs.next(t)
	if a.tty == nil {
		t.Fatal("the terminal was not handed over")
	}
	_ = ptmx.Close()
	if _, err := a.Read(make([]byte, 8)); err != io.EOF {
		t.Errorf("Read after the terminal hung up: %v, want io.EOF", err)
	}
	_ = a.Finish(Exit{Detached: true})
	a.ret <- nil
	wait(t, res)
}

// Input and output on two terminals are no one terminal to hand over:
// the client relays them over the wire as before.
func TestTwoTerminalsAreRelayed(t *testing.T) {
	path, fs := serve(t)
	in, out := openPTY(t), openPTY(t)
	conn, err := endpoint.Dial(path)
	if err != nil {
		t.Fatal(err)
	}
	res := make(chan result, 1)
	go func() {
		exit, err := RunClient(t.Context(), conn, in.tty, out.tty, Hello{})
		res <- result{exit, err}
	}()
	a := fs.next(t)
	if a.tty != nil {
		t.Error("a terminal was handed over though input and output differ")
	}
	if _, ok := a.WriteNow([]byte("now")); ok {
		t.Error("WriteNow said a relayed terminal can be written without waiting")
	}
	if _, err := a.Write([]byte("ready")); err != nil {
		t.Fatal(err)
	}
	out.waitShown(t, "ready")
	if _, err := in.ptmx.Write([]byte("k")); err != nil {
		t.Fatal(err)
	}
	if got := readN(t, a, 1); string(got) != "k" {
		t.Errorf("typed k, the server read %q", got)
	}
	_ = a.Finish(Exit{Detached: true})
	a.ret <- nil
	wait(t, res)
}

// attachSaying asks to attach with tty set, then sends what the test
// gives in place of the terminal; the server must refuse it: close the
// connection and attach nothing.
func attachSaying(t *testing.T, path string, frame []byte, fds ...int) {
	t.Helper()
	c, err := endpoint.Dial(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := control.Encode(c, control.Request{V: control.Version, Op: control.OpAttach, Width: 80, Height: 24, TTY: true}); err != nil {
		t.Fatal(err)
	}
	line, err := control.NewReader(io.LimitReader(c, int64(len(`{"v":1,"ok":true}`)+1))).Line()
	if err != nil || string(line) != `{"v":1,"ok":true}` {
		t.Fatalf("attach reply %q, %v", line, err)
	}
	var oob []byte
	if len(fds) > 0 {
		oob = unix.UnixRights(fds...)
	}
	if _, _, err := c.WriteMsgUnix(frame, oob, nil); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(failsafe))
	if n, err := c.Read(make([]byte, 64)); err != io.EOF {
		t.Errorf("the server answered %d bytes, %v; want the connection closed", n, err)
	}
}

// What is not one terminal in a 't' frame is refused.
func TestHandedTerminalRefused(t *testing.T) {
	path, fs := serve(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	p := openPTY(t)
	tframe := appendFrame(nil, frameTTY, []byte{0})
	t.Run("a pipe", func(t *testing.T) { attachSaying(t, path, tframe, int(r.Fd())) })
	t.Run("no descriptor", func(t *testing.T) { attachSaying(t, path, tframe) })
	t.Run("two", func(t *testing.T) { attachSaying(t, path, tframe, int(p.tty.Fd()), int(p.tty.Fd())) })
	t.Run("keys instead", func(t *testing.T) { attachSaying(t, path, appendFrame(nil, frameInput, []byte("k")), int(p.tty.Fd())) })
	select {
	case a := <-fs.attached:
		t.Errorf("a refused terminal attached: %+v", a.Hello())
	default:
	}
}
