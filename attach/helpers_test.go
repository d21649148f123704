package attach

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/sandmux/sandmux/control"
	"github.com/sandmux/sandmux/endpoint"
)

// failsafe bounds every wait in these tests: nothing sleeps, but a bug
// must fail the test instead of hanging it.
const failsafe = 10 * time.Second

// fakeServer is the Attacher: it hands each stream to the test and
// returns what the test says.
type fakeServer struct{ attached chan *attached }

// attached is one stream the fake server was given; send on ret to end
// its Attach.
type attached struct {
	*Conn
	ret chan error
}

func (f *fakeServer) Attach(ctx context.Context, st Stream) error {
	a := &attached{Conn: st.(*Conn), ret: make(chan error, 1)}
	select {
	case f.attached <- a:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-a.ret:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// next is the next stream attached.
func (f *fakeServer) next(t *testing.T) *attached {
	t.Helper()
	select {
	case a := <-f.attached:
		return a
	case <-time.After(failsafe):
		t.Fatal("no client attached")
		return nil
	}
}

type noHandler struct{}

func (noHandler) Handle(context.Context, control.Request) control.Reply {
	return control.Fail(errors.New("only attach is served here"))
}

// serve runs a control server with a Handoff to a fake server on a
// socket in a temporary directory, until the test ends.
func serve(t *testing.T) (string, *fakeServer) {
	t.Helper()
	path, fs, _ := serveStoppable(t)
	return path, fs
}

// serveStoppable is serve, with a stop that ends the server early and
// waits for it.
func serveStoppable(t *testing.T) (string, *fakeServer, func()) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.sock")
	l, err := endpoint.Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	fs := &fakeServer{attached: make(chan *attached, 1)}
	logged := make(chan error, 16)
	srv := control.NewServer(noHandler{}, control.NewHub(), endpoint.CheckPeer,
		control.WithAttacher(Handoff{Attacher: fs, Log: func(err error) {
			select {
			case logged <- err:
			default:
			}
		}}))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, l) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Serve: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return path, fs, stop
}

// ptyTerm is a real terminal for the client: the test types on and reads
// from the master side, the client gets the tty.
type ptyTerm struct {
	ptmx, tty *os.File

	mu     sync.Mutex
	shown  bytes.Buffer
	update chan struct{} // one slot: shown grew
	reader sync.WaitGroup
}

func openPTY(t *testing.T) *ptyTerm {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		if os.Getenv("SANDMUX_REQUIRE_ALL") == "1" {
			t.Fatalf("a PTY is required (SANDMUX_REQUIRE_ALL=1): %v", err)
		}
		t.Skipf("SKIPPING: no PTY: %v (set SANDMUX_REQUIRE_ALL=1 to make this fatal)", err)
	}
	if err := pty.Setsize(ptmx, &pty.Winsize{Cols: 80, Rows: 24}); err != nil {
		t.Fatal(err)
	}
	p := &ptyTerm{ptmx: ptmx, tty: tty, update: make(chan struct{}, 1)}
	p.reader.Go(func() {
		buf := make([]byte, 32<<10)
		for {
			n, err := ptmx.Read(buf)
			p.mu.Lock()
			p.shown.Write(buf[:n])
			p.mu.Unlock()
			select {
			case p.update <- struct{}{}:
			default:
			}
			if err != nil {
				return
			}
		}
	})
	t.Cleanup(func() {
		_ = tty.Close()
		_ = ptmx.Close()
		p.reader.Wait()
	})
	return p
}

// waitShown waits until the terminal showed s.
func (p *ptyTerm) waitShown(t *testing.T, s string) {
	t.Helper()
	deadline := time.After(failsafe)
	for {
		p.mu.Lock()
		ok := bytes.Contains(p.shown.Bytes(), []byte(s))
		p.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-p.update:
		case <-deadline:
			p.mu.Lock()
			defer p.mu.Unlock()
			t.Fatalf("the terminal never showed %q; it shows %q", s, p.shown.Bytes())
		}
	}
}

// result is how RunClient returned.
type result struct {
	exit Exit
	err  error
}

// startClient runs RunClient on p's tty over a new connection to path.
// The test must take its result.
func startClient(t *testing.T, ctx context.Context, path string, p *ptyTerm, hello Hello, opts ...ClientOption) <-chan result {
	t.Helper()
	conn, err := endpoint.Dial(path)
	if err != nil {
		t.Fatal(err)
	}
	res := make(chan result, 1)
	go func() {
		exit, err := RunClient(ctx, conn, p.tty, p.tty, hello, opts...)
		res <- result{exit, err}
	}()
	return res
}

func wait(t *testing.T, res <-chan result) result {
	t.Helper()
	select {
	case r := <-res:
		return r
	case <-time.After(failsafe):
		t.Fatal("RunClient did not return")
		return result{}
	}
}

// readN reads exactly n bytes of input from st.
func readN(t *testing.T, st io.Reader, n int) []byte {
	t.Helper()
	got := make([]byte, n)
	done := make(chan error, 1)
	go func() {
		_, err := io.ReadFull(st, got)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("read input: %v", err)
		}
	case <-time.After(failsafe):
		t.Fatalf("input never arrived")
	}
	return got
}

// rawAttach attaches over a bare connection, reads the OK, and returns
// the connection, to play a client that misbehaves.
func rawAttach(t *testing.T, path string) net.Conn {
	t.Helper()
	c, err := endpoint.Dial(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if err := control.Encode(c, control.Request{V: control.Version, Op: control.OpAttach, Width: 80, Height: 24}); err != nil {
		t.Fatal(err)
	}
	line, err := control.NewReader(io.LimitReader(c, int64(len(`{"v":1,"ok":true}`)+1))).Line()
	if err != nil || string(line) != `{"v":1,"ok":true}` {
		t.Fatalf("attach reply %q, %v", line, err)
	}
	return c
}

// waitClosed waits until ch is closed, draining what it still holds.
func waitClosed(t *testing.T, ch <-chan Size) {
	t.Helper()
	deadline := time.After(failsafe)
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("Resizes was not closed")
		}
	}
}
