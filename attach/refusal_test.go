package attach

import (
	"errors"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandmux/sandmux/control"
	"github.com/sandmux/sandmux/endpoint"
)

// A server that refused the connection and hung up before the attach
// request went out is still heard: the client gets its reason, not a
// broken pipe.
func TestRefusalBeforeHelloIsRead(t *testing.T) {
	const why = "refused a client of uid 1: only uid 2 may use this server"
	path := filepath.Join(t.TempDir(), "s.sock")
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	hungUp := make(chan struct{})
	go func() {
		defer close(hungUp)
		c, err := l.Accept()
		if err != nil {
			return
		}
		_ = control.Encode(c, control.Fail(errors.New(why))) // Best effort: the test checks what arrived.
		_ = c.Close()
	}()
	conn, err := endpoint.Dial(path)
	if err != nil {
		t.Fatal(err)
	}
	<-hungUp
	// No terminal: the handshake fails before one is touched.
	_, err = RunClient(t.Context(), conn, nil, nil, Hello{Size: Size{Width: 80, Height: 24}})
	if err == nil || !strings.Contains(err.Error(), "the server refused: "+why) {
		t.Errorf("RunClient against a server that refused and hung up = %v, want its reason %q", err, why)
	}
}
