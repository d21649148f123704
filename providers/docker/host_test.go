package docker

import (
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/moby/moby/client"
)

// tcpEngine serves this machine's engine socket on a TCP port of 127.0.0.1,
// as a remote engine would be reached (without TLS), and returns its
// tcp:// address. Its goroutines end and are joined when the test ends.
func tcpEngine(t *testing.T) string {
	t.Helper()
	sock := strings.TrimPrefix(engineHost(""), "unix://")
	if _, err := os.Stat(sock); err != nil {
		t.Skipf("SKIPPING: the engine is not on a local unix socket (%v)", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		conns []net.Conn
	)
	track := func(c net.Conn) {
		mu.Lock()
		conns = append(conns, c)
		mu.Unlock()
	}
	wg.Go(func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return // closed by the cleanup
			}
			track(in)
			out, err := net.Dial("unix", sock)
			if err != nil {
				_ = in.Close()
				continue
			}
			track(out)
			wg.Go(func() { pipe(out, in) })
			wg.Go(func() { pipe(in, out) })
		}
	})
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return "tcp://" + ln.Addr().String()
}

// pipe copies one direction, then half-closes the other side so that the
// peer sees the end, as the engine's hijacked streams expect.
func pipe(dst, src net.Conn) {
	_, _ = io.Copy(dst, src)
	if cw, ok := dst.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
}

// DOCKER_HOST is honoured, and a tcp:// engine works end to end: API calls,
// the hijacked exec stream and the events stream.
func TestDockerHostTCP(t *testing.T) {
	needDocker(t)
	t.Setenv(client.EnvOverrideHost, tcpEngine(t))
	tm := open(t, imageSpec(t, "sh", "-c", "read x; echo over-tcp; exit 4"))
	tm.send("\r")
	tm.expect("over-tcp")
	if st := tm.wait(); st.Code != 4 {
		t.Errorf("Wait = %+v, want exit 4", st)
	}
	if got := tm.handle().e.DaemonHost(); !strings.HasPrefix(got, "tcp://127.0.0.1:") {
		t.Errorf("dialled %s, want the DOCKER_HOST address", got)
	}
}

// The host option overrides DOCKER_HOST.
func TestHostOptionOverridesEnv(t *testing.T) {
	needDocker(t)
	addr := tcpEngine(t)
	t.Setenv(client.EnvOverrideHost, "unix:///nonexistent/docker.sock")
	spec := imageSpec(t, "true")
	spec.Options["host"] = addr
	tm := open(t, spec)
	if st := tm.wait(); st.Code != 0 {
		t.Errorf("Wait = %+v, want exit 0", st)
	}
	delete(spec.Options, "host")
	_, err := New().Open(t.Context(), spec)
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/docker.sock") || !strings.Contains(err.Error(), "DOCKER_HOST") {
		t.Errorf("Open with an unreachable DOCKER_HOST = %v, want an error naming it and what to set", err)
	}
}
