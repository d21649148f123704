package daemon

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"go.uber.org/goleak"

	"github.com/sandmux/sandmux/endpoint"
)

// helperEnv makes the test binary, re-run by Start, a stand-in server:
// its arguments say how it behaves (see helper).
const helperEnv = "SANDMUX_DAEMON_TEST_HELPER"

// TestMain fails the package if a test leaves a goroutine behind, or a
// child process (a server Start left running, or one exited and not
// reaped: a zombie).
func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		os.Exit(helper(os.Args[1:]))
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		if kids := children(); len(kids) > 0 {
			fmt.Fprintf(os.Stderr, "FAIL: child processes left behind: %v\n", kids)
			code = max(code, 1)
		}
		os.Exit(code)
	}))
}

// helper is the stand-in server. Modes:
//
//	serve SOCKET      listen, answer "ok" to each client, exit on SIGTERM
//	fail              print a hostile error and exit 3 without listening
//	hang              never listen, ignore SIGTERM (only SIGKILL ends it)
//	lose SOCKET CTL   ask the test over CTL to take SOCKET first, then
//	                  try to listen there (and be refused)
//	wait CTL          never listen; tell the test over CTL it is up and
//	                  wait (SIGTERM ends it)
//	rotate NAME       grow its log past MaxLog, RotateLog, write more
//	rotate-writes NAME  write past MaxLog through RotatingLog
func helper(args []string) int {
	fmt.Fprintf(os.Stderr, "helper %s up\n", args[0])
	switch args[0] {
	case "serve":
		return serve(args[1])
	case "fail":
		fmt.Fprintln(os.Stderr, "config broken: \x1b]0;pwned\a")
		return 3
	case "hang":
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, syscall.SIGTERM)
		for range sigs {
			fmt.Fprintln(os.Stderr, "helper ignores SIGTERM")
		}
	case "wait":
		c, err := net.Dial("unix", args[1])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		_, _ = io.Copy(io.Discard, c) // Until SIGTERM.
	case "rotate":
		_, _ = os.Stderr.Write(bytes.Repeat([]byte("x"), MaxLog+1))
		if err := RotateLog(args[1]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Fprintln(os.Stderr, "after rotation")
		fmt.Println("stdout too")
		return 0
	case "rotate-writes":
		// A logger that writes past MaxLog, its log rotated by the writes
		// themselves.
		w := RotatingLog(os.Stderr, args[1])
		line := append(bytes.Repeat([]byte("x"), 1<<10), '\n')
		for range MaxLog/len(line) + 2 {
			_, _ = w.Write(line)
		}
		_, _ = w.Write([]byte("after rotation\n"))
		return 0
	case "lose":
		c, err := net.Dial("unix", args[2])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		_, _ = bufio.NewReader(c).ReadString('\n') // The test has listened.
		if _, err := endpoint.Listen(args[1]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return 2
}

func serve(socket string) int {
	l, err := endpoint.Listen(socket)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM)
	go func() {
		<-sigs
		_ = l.Close() // Ends the accept loop; removes the socket.
	}()
	for {
		c, err := l.Accept()
		if err != nil {
			return 0
		}
		_, _ = io.WriteString(c, "ok\n")
		_ = c.Close()
	}
}

// children lists this process's children, zombies included, from /proc.
func children() []string {
	var kids []string
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, path := range stats {
		f := statFields(path)
		if len(f) > 1 && f[1] == strconv.Itoa(os.Getpid()) {
			kids = append(kids, filepath.Base(filepath.Dir(path))+" ("+f[0]+")")
		}
	}
	return kids
}

// statFields are the fields of a /proc/PID/stat after the command name
// (which may hold spaces and parentheses): state, ppid, pgrp, session, …
func statFields(path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil // It exited meanwhile.
	}
	s := string(b)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
}

// env gives a test private socket and state directories, which the
// servers it starts inherit.
func env(t *testing.T) {
	t.Helper()
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv(helperEnv, "1")
	// A race-enabled helper otherwise sleeps a second before exiting.
	t.Setenv("GORACE", "atexit_sleep_ms=0")
}

// opts starts the helper in mode for server name.
func opts(t *testing.T, name string, args ...string) Options {
	t.Helper()
	socket, err := endpoint.Path(name, "")
	if err != nil {
		t.Fatal(err)
	}
	return Options{Socket: socket, Exe: os.Args[0], Args: args}
}

// stopServer ends a server Start left running and reaps it.
func stopServer(t *testing.T, pid int) {
	t.Helper()
	p, err := os.FindProcess(pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Errorf("stop server %d: %v", pid, err)
	}
	if _, err := p.Wait(); err != nil {
		t.Errorf("reap server %d: %v", pid, err)
	}
}
