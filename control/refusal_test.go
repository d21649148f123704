package control_test

import (
	"errors"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandmux/sandmux/control"
	"github.com/sandmux/sandmux/endpoint"
)

// hangUpWith listens on a new socket whose one connection is answered
// with why and closed at once, as a server refusing a client does; hungUp
// closes once it has closed.
func hangUpWith(t *testing.T, why string) (path string, hungUp <-chan struct{}) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "s.sock")
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		c, err := l.Accept()
		if err != nil {
			return
		}
		_ = control.Encode(c, control.Fail(errors.New(why))) // Best effort: the test checks what arrived.
		_ = c.Close()
	}()
	t.Cleanup(func() { _ = l.Close(); <-done })
	return path, done
}

// A server that refused the connection and hung up before the request
// went out is still heard: the caller gets its reason, not a broken pipe.
func TestRefusalBeforeRequestIsRead(t *testing.T) {
	const why = "refused a client of uid 1: only uid 2 may use this server"
	path, hungUp := hangUpWith(t, why)
	c, err := endpoint.Dial(path)
	if err != nil {
		t.Fatal(err)
	}
	cl := control.NewClient(c)
	defer cl.Close()
	<-hungUp
	if _, err := cl.Call(t.Context(), control.Request{Op: control.OpLs}); err == nil || !strings.Contains(err.Error(), why) {
		t.Errorf("Call to a server that refused and hung up = %v, want its reason %q", err, why)
	}
}
