package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// silentListener accepts connections on 127.0.0.1 and never answers, as a
// DOCKER_HOST that is not an engine, or one that hangs. It returns the
// address; everything is closed when the test ends.
func silentListener(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		conns []net.Conn
	)
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	})
	t.Cleanup(func() {
		_ = ln.Close()
		wg.Wait()
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
	})
	return ln.Addr().String()
}

// Docker panes on an engine address that accepts and never answers: one
// with a short connect_timeout fails with an error naming it; one with a
// long one stays starting until x, which cancels the start and removes
// the pane; k on another cancels its start and leaves it showing so.
func TestContract_S4_StartingPanesCloseKillAndTimeout(t *testing.T) {
	addr := silentListener(t)
	dir := t.TempDir()
	var cfg strings.Builder
	for _, sb := range []struct{ name, timeout string }{{"hang-x", "10m"}, {"hang-k", "10m"}, {"quick", "1s"}} {
		fmt.Fprintf(&cfg, "[[sandbox]]\nname = %q\nprovider = \"docker\"\ndocker = { image = \"none\", host = \"tcp://%s\", connect_timeout = %q }\n\n", sb.name, addr, sb.timeout)
	}
	path := filepath.Join(dir, "sandmux.toml")
	if err := os.WriteFile(path, []byte(cfg.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	tt := startTerm(t, 121, 41, sandmuxBin+" -c "+path)
	tt.waitFor("the quick pane failing on its connect timeout", func(s string) bool {
		return strings.Contains(s, "quick · docker · failed") && strings.Contains(s, "hang-x · docker · starting")
	})
	tt.keys("C-b", "x") // the focused pane: hang-x
	tt.waitFor("hang-x gone", func(s string) bool { return !strings.Contains(s, "hang-x") })
	tt.waitText("hang-k · docker · starting")
	tt.keys("C-b", "k") // focus moved to hang-k
	tt.waitText("hang-k · docker · failed · start cancelled")
	tt.keys("C-b", "q") // nothing runs any more: no confirmation
	s := tt.waitExit()
	for _, want := range []string{"hang-x: start cancelled", "hang-k: start cancelled", "quick: failed to start", "within connect_timeout = 1s"} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
	tt.checkRestored()
}
