package control_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/sandmux/sandmux/control"
	"github.com/sandmux/sandmux/endpoint"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeHandler answers from a fixed table of sessions; wait blocks until
// its context ends (the client went away) and records that.
type fakeHandler struct {
	waiting   chan struct{}
	cancelled chan struct{}
}

func (h *fakeHandler) Handle(ctx context.Context, req control.Request) control.Reply {
	switch req.Op {
	case control.OpLs:
		return control.Reply{OK: true, Sessions: []control.SessionInfo{{Number: 1, ID: "s1", Name: "one", State: "running"}}}
	case control.OpWait:
		if req.Session == "never" {
			h.waiting <- struct{}{}
			<-ctx.Done()
			h.cancelled <- struct{}{}
			return control.Fail(ctx.Err())
		}
		return control.Reply{OK: true}
	case control.OpSend:
		return control.Reply{OK: true, Screen: string(req.Data)}
	}
	if req.Session == "nope" {
		return control.Fail(fmt.Errorf("no session %q: ctl ls lists them", req.Session))
	}
	return control.Reply{OK: true}
}

// serve runs a server on a private socket until the test ends.
func serve(t *testing.T) (string, *fakeHandler, *control.Hub) {
	t.Helper()
	path, h, hub, stop := startServe(t)
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return path, h, hub
}

// startServe serves on a private socket until stop, which returns what
// Serve did.
func startServe(t *testing.T) (string, *fakeHandler, *control.Hub, func() error) {
	t.Helper()
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	path, err := endpoint.Path("t", "")
	if err != nil {
		t.Fatal(err)
	}
	l, err := endpoint.Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	h := &fakeHandler{waiting: make(chan struct{}, 1), cancelled: make(chan struct{}, 1)}
	hub := control.NewHub()
	srv := control.NewServer(h, hub, endpoint.CheckPeer)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, l) }()
	return path, h, hub, func() error { cancel(); return <-done }
}

func dial(t *testing.T, path string) *control.Client {
	t.Helper()
	c, err := endpoint.Dial(path)
	if err != nil {
		t.Fatal(err)
	}
	cl := control.NewClient(c)
	t.Cleanup(func() { _ = cl.Close() })
	return cl
}

func TestCallsInOrderOnOneConnection(t *testing.T) {
	path, _, _ := serve(t)
	cl := dial(t, path)
	rep, err := cl.Call(t.Context(), control.Request{Op: control.OpLs})
	if err != nil || len(rep.Sessions) != 1 || rep.Sessions[0].Name != "one" {
		t.Fatalf("ls = %+v, %v", rep, err)
	}
	if _, err := cl.Call(t.Context(), control.Request{Op: control.OpKill, Session: "nope"}); err == nil || !strings.Contains(err.Error(), "ctl ls") {
		t.Errorf("kill nope: %v, want the handler's error", err)
	}
	// An error does not end the connection.
	if rep, err := cl.Call(t.Context(), control.Request{Op: control.OpSend, Session: "1", Data: []byte("hi\x1b")}); err != nil || rep.Screen != "hi\x1b" {
		t.Errorf("send after an error = %+v, %v", rep, err)
	}
}

// Bad lines get an error line each, and the connection goes on.
func TestBadRequestsAnsweredConnectionGoesOn(t *testing.T) {
	path, _, _ := serve(t)
	c, err := endpoint.Dial(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	long := `{"v":1,"op":"ls","x":"` + strings.Repeat("a", control.MaxLine) + `"}`
	for _, line := range []string{"garbage", `{"v":9,"op":"ls"}`, `{"v":1,"op":"kill"}`, `{"v":1,"op":"ls","bogus":1}`, long, `{"v":1,"op":"ls"}`} {
		if _, err := io.WriteString(c, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	r := control.NewReader(c)
	for i, want := range []string{"not a JSON object", "version 9", `op kill needs`, `takes no field`, "longer than", `"ok":true`} {
		line, err := r.Line()
		if err != nil {
			t.Fatalf("reply %d: %v", i, err)
		}
		if !strings.Contains(string(line), want) {
			t.Errorf("reply %d = %.200s, want %q", i, line, want)
		}
	}
}

// Twenty clients at once each get their own answers.
func TestTwentyClientsInParallel(t *testing.T) {
	path, _, _ := serve(t)
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i := range 20 {
		wg.Go(func() {
			c, err := endpoint.Dial(path)
			if err != nil {
				errs <- err
				return
			}
			cl := control.NewClient(c)
			defer cl.Close()
			for j := range 50 {
				data := fmt.Sprintf("client %d call %d", i, j)
				rep, err := cl.Call(context.Background(), control.Request{Op: control.OpSend, Session: "1", Data: []byte(data)})
				if err != nil || rep.Screen != data {
					errs <- fmt.Errorf("client %d: %+v, %v", i, rep, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// A client that goes away in the middle of a wait cancels it.
func TestDisconnectCancelsRequest(t *testing.T) {
	path, h, _ := serve(t)
	c, err := endpoint.Dial(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(c, `{"v":1,"op":"wait","session":"never","state":"exited"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	<-h.waiting
	_ = c.Close()
	<-h.cancelled // the abandoned wait returns
	cl := dial(t, path)
	if _, err := cl.Call(t.Context(), control.Request{Op: control.OpLs}); err != nil {
		t.Fatal(err)
	}
}

// subscribe asks for events on a raw connection and reads the server's
// OK, after which the subscription exists.
func subscribe(t *testing.T, path string) (net.Conn, *control.Reader) {
	t.Helper()
	c, err := endpoint.Dial(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if _, err := io.WriteString(c, `{"v":1,"op":"events"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	r := control.NewReader(c)
	if line, err := r.Line(); err != nil || !strings.Contains(string(line), `"ok":true`) {
		t.Fatalf("subscribe: %s, %v", line, err)
	}
	return c, r
}

// A reader that falls behind is dropped with a last notice; publishing
// never waits for it, and a reader that keeps up gets every event. The
// slow reader reads one line for every two events published, so it falls
// behind by construction, and the server's write to it never waits long
// enough (writeTimeout) to cut it off before the notice, however slow the
// machine.
func TestStalledEventsReaderDropped(t *testing.T) {
	path, _, hub := serve(t)
	_, slow := subscribe(t, path)
	_, keeping := subscribe(t, path)

	const bound = 200000               // far past the queue and the socket's buffer: a drop must come first
	detail := strings.Repeat("x", 200) // fills socket buffers sooner
	n, i := 0, 0
	for ; i < bound; i++ {
		hub.Publish(control.Event{Kind: control.EventState, Detail: fmt.Sprint(i, detail)})
		// The keeping reader reads each event before the next is sent:
		// it keeps up by construction.
		line, err := keeping.Line()
		if err != nil || !strings.Contains(string(line), fmt.Sprintf(`"detail":"%dxx`, i)) {
			t.Fatalf("keeping reader, event %d: %.80s, %v", i, line, err)
		}
		if i%2 == 1 {
			continue
		}
		line, err = slow.Line()
		if err != nil {
			t.Fatalf("slow reader after %d events: %v, want the dropped notice first", n, err)
		}
		if strings.Contains(string(line), `"error"`) {
			if !strings.Contains(string(line), "dropped") {
				t.Errorf("last line %s, want the dropped notice", line)
			}
			break
		}
		n++
	}
	if i == bound {
		t.Fatalf("the slow reader got %d of %d events and was never dropped", n, bound)
	}
	if hub.Subscribers() != 1 {
		t.Errorf("%d subscribers left, want the keeping one", hub.Subscribers())
	}
}

// The client's Events ends with the server's notice when it is dropped.
func TestClientEventsReportsEnd(t *testing.T) {
	path, _, hub := serve(t)
	cl := dial(t, path)
	got := make(chan control.Event, 1)
	done := make(chan error, 1)
	go func() {
		done <- cl.Events(t.Context(), func(e control.Event) bool { got <- e; return false })
	}()
	// Publish until the client's subscription has seen one: there is no
	// other signal that it subscribed.
	for sent := false; !sent; {
		hub.Publish(control.Event{Kind: control.EventStarted})
		select {
		case e := <-got:
			sent = e.Kind == control.EventStarted
		case <-time.After(10 * time.Millisecond):
		}
	}
	if err := <-done; err != nil {
		t.Errorf("Events after fn returned false: %v", err)
	}
}

// fakeAttacher records the connection it was handed and echoes what
// arrives on it, raw, until the client closes it.
type fakeAttacher struct {
	got chan control.Request
}

func (a *fakeAttacher) AttachConn(ctx context.Context, c *net.UnixConn, buffered []byte, req control.Request) {
	a.got <- req
	if _, err := c.Write(buffered); err != nil {
		return
	}
	_, _ = io.Copy(c, c) // Best effort: ends when the client closes or the server stops.
}

// serveAttacher runs a server with an attacher on a private socket.
func serveAttacher(t *testing.T, a control.Attacher) string {
	t.Helper()
	dir := t.TempDir()
	path := dir + "/a.sock"
	l, err := endpoint.Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	srv := control.NewServer(&fakeHandler{}, control.NewHub(), endpoint.CheckPeer, control.WithAttacher(a))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, l) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return path
}

// The first line attaching hands the connection over with the bytes sent
// after it, which are never read as requests.
func TestAttachHandsConnectionOver(t *testing.T) {
	a := &fakeAttacher{got: make(chan control.Request, 1)}
	path := serveAttacher(t, a)
	c, err := endpoint.Dial(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	after := "\x00\x01frames\n" + `{"v":1,"op":"ls"}` + "\n"
	if _, err := io.WriteString(c, `{"v":1,"op":"attach","width":100,"height":30,"term":"xterm"}`+"\n"+after); err != nil {
		t.Fatal(err)
	}
	req := <-a.got
	if req.Op != control.OpAttach || req.Width != 100 || req.Height != 30 || req.Term != "xterm" {
		t.Errorf("attacher got %+v", req)
	}
	more := "more\n"
	if _, err := io.WriteString(c, more); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(after)+len(more))
	if _, err := io.ReadFull(c, got); err != nil {
		t.Fatal(err)
	}
	if string(got) != after+more {
		t.Errorf("the attacher saw %q, want %q: every byte after the attach line, none answered", got, after+more)
	}
}

// The server stopping closes a handed-over connection and waits for its
// attacher (serveAttacher's cleanup checks Serve returns).
func TestAttachedConnectionClosedOnStop(t *testing.T) {
	a := &fakeAttacher{got: make(chan control.Request, 1)}
	dir := t.TempDir()
	l, err := endpoint.Listen(dir + "/s.sock")
	if err != nil {
		t.Fatal(err)
	}
	srv := control.NewServer(&fakeHandler{}, control.NewHub(), nil, control.WithAttacher(a))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, l) }()
	c, err := endpoint.Dial(dir + "/s.sock")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, `{"v":1,"op":"attach","width":1,"height":1}`+"\n"); err != nil {
		t.Fatal(err)
	}
	<-a.got
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Serve: %v", err)
	}
	if n, err := c.Read(make([]byte, 1)); err == nil {
		t.Errorf("read %d bytes after the server stopped; want the connection closed", n)
	}
}

// Without an attacher, or after another request, attach is an error and
// the connection goes on.
func TestAttachRefused(t *testing.T) {
	path, _, _ := serve(t)
	cl := dial(t, path)
	attach := control.Request{Op: control.OpAttach, Width: 80, Height: 24}
	if _, err := cl.Call(t.Context(), attach); err == nil || !strings.Contains(err.Error(), "does not attach terminals") {
		t.Errorf("attach without an attacher: %v", err)
	}
	if _, err := cl.Call(t.Context(), control.Request{Op: control.OpLs}); err != nil {
		t.Errorf("ls after a refused attach: %v", err)
	}

	a := &fakeAttacher{got: make(chan control.Request, 1)}
	c, err := endpoint.Dial(serveAttacher(t, a))
	if err != nil {
		t.Fatal(err)
	}
	late := control.NewClient(c)
	defer late.Close()
	if _, err := late.Call(t.Context(), control.Request{Op: control.OpLs}); err != nil {
		t.Fatal(err)
	}
	if _, err := late.Call(t.Context(), attach); err == nil || !strings.Contains(err.Error(), "first request") {
		t.Errorf("attach as a second request: %v", err)
	}
	select {
	case req := <-a.got:
		t.Errorf("attacher got a connection that spoke lines first: %+v", req)
	default:
	}
}

// A server that stops ends an events stream with a last line saying so,
// not a broken connection.
func TestStoppingServerEndsStreamWithNotice(t *testing.T) {
	path, _, hub, stop := startServe(t)
	cl := dial(t, path)
	got := make(chan struct{}, 1)
	done := make(chan error, 1)
	go func() {
		done <- cl.Events(t.Context(), func(control.Event) bool {
			select {
			case got <- struct{}{}:
			default:
			}
			return true
		})
	}()
	for subscribed := false; !subscribed; { // no other signal that it subscribed
		hub.Publish(control.Event{Kind: control.EventStarted})
		select {
		case <-got:
			subscribed = true
		case <-time.After(10 * time.Millisecond):
		}
	}
	served := make(chan error, 1)
	go func() { served <- stop() }()
	if err := <-done; err == nil || !strings.Contains(err.Error(), "the server stopped") {
		t.Errorf("Events on a stopping server: %v, want the server's notice", err)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
}
