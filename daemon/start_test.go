package daemon

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sandmux/sandmux/endpoint"
)

// start runs Start with o and registers the server it started for
// stopping.
func start(t *testing.T, o Options) int {
	t.Helper()
	pid, err := Start(t.Context(), o)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	if pid != 0 {
		t.Cleanup(func() { stopServer(t, pid) })
	}
	return pid
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

// The server runs in a session of its own, its stderr goes to a private
// log, and Start returns once its socket answers.
func TestStartDetachedServer(t *testing.T) {
	env(t)
	o := opts(t, "work")
	o.Args = []string{"serve", o.Socket}
	pid := start(t, o)
	if pid == 0 {
		t.Fatal("Start found a server where none ran")
	}

	c, err := endpoint.Dial(o.Socket)
	if err != nil {
		t.Fatalf("Dial after Start: %v", err)
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	_ = c.Close()
	if err != nil || line != "ok\n" {
		t.Errorf("server said %q, %v; want ok", line, err)
	}
	if peer, err := answeredBy(o.Socket); err != nil || peer != pid {
		t.Errorf("socket served by pid %d (%v), Start returned %d", peer, err, pid)
	}

	f := statFields("/proc/" + strconv.Itoa(pid) + "/stat")
	ours, err := unix.Getsid(0)
	if err != nil {
		t.Fatal(err)
	}
	if len(f) < 4 || f[3] != strconv.Itoa(pid) || f[3] == strconv.Itoa(ours) {
		t.Errorf("server stat %v: want session %d (its own), not ours %d", f, pid, ours)
	}

	log, err := LogPath("work")
	if err != nil {
		t.Fatal(err)
	}
	if m := mode(t, filepath.Dir(log)); m != 0o700 {
		t.Errorf("log directory mode %v, want 0700", m)
	}
	if m := mode(t, log); m != 0o600 {
		t.Errorf("log mode %v, want 0600", m)
	}
	if b, _ := os.ReadFile(log); !strings.Contains(string(b), "helper serve up") {
		t.Errorf("log %q lacks the server's stderr", b)
	}

	// A second client finds it running and starts nothing.
	if again := start(t, o); again != 0 {
		t.Errorf("second Start started pid %d, want 0 (already running)", again)
	}
}

// A server that exits at once: the error quotes its message, escaped.
func TestStartEarlyExit(t *testing.T) {
	env(t)
	o := opts(t, "broken", "fail")
	_, err := Start(t.Context(), o)
	if err == nil {
		t.Fatal("Start of a failing server succeeded")
	}
	msg := err.Error()
	for _, want := range []string{"exit status 3", "config broken", `\x1b]0;pwned\x07`, "fix what it says"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if strings.ContainsAny(msg, "\x1b\a") {
		t.Errorf("error %q carries raw control characters", msg)
	}
}

// A server that never answers is stopped, SIGKILL after SIGTERM, reaped.
func TestStartTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out the kill grace")
	}
	env(t)
	o := opts(t, "stuck", "hang")
	// Long enough for the helper to start and write its line even on a
	// slow, loaded machine: a SIGTERM before its handler is set ends it
	// at once, before it wrote anything (seen at 200ms under load).
	o.Timeout = 3 * time.Second
	_, err := Start(t.Context(), o)
	if err == nil || !strings.Contains(err.Error(), "did not answer") || !strings.Contains(err.Error(), "within 3s") {
		t.Fatalf("Start of a hung server: %v, want a timeout", err)
	}
	if !strings.Contains(err.Error(), "helper hang up") {
		t.Errorf("error %q lacks the log's tail", err)
	}
	// TestMain fails the package if it was left unreaped.
}

// Clients racing to start one name: one server, every client succeeds.
func TestStartRace(t *testing.T) {
	env(t)
	const clients = 4
	for round := range 3 {
		o := opts(t, "race"+strconv.Itoa(round))
		o.Args = []string{"serve", o.Socket}
		pids := make([]int, clients)
		errs := make([]error, clients)
		begin := make(chan struct{})
		var wg sync.WaitGroup
		for i := range clients {
			wg.Go(func() {
				<-begin
				pids[i], errs[i] = Start(t.Context(), o)
			})
		}
		close(begin)
		wg.Wait()
		started := 0
		for i, pid := range pids {
			if errs[i] != nil {
				t.Errorf("round %d client %d: %v", round, i, errs[i])
			}
			if pid != 0 {
				started++
				t.Cleanup(func() { stopServer(t, pid) })
			}
		}
		if started != 1 {
			t.Errorf("round %d: %d servers started (%v), want 1", round, started, pids)
		}
	}
	if kids := children(); len(kids) != 3 {
		t.Errorf("children %v, want the 3 servers", kids)
	}
}

// A server started some other way while Start waited wins; the one Start
// spawned is refused, reaped, and Start reports the other's (pid 0).
func TestStartLosesToAnotherServer(t *testing.T) {
	env(t)
	ctlPath := filepath.Join(t.TempDir(), "ctl.sock")
	ctl, err := net.Listen("unix", ctlPath)
	if err != nil {
		t.Fatal(err)
	}
	defer ctl.Close()
	o := opts(t, "contested")
	o.Args = []string{"lose", o.Socket, ctlPath}

	other := make(chan *net.UnixListener, 1)
	var wg sync.WaitGroup
	wg.Go(func() {
		c, err := ctl.Accept()
		if err != nil {
			t.Error(err)
			other <- nil
			return
		}
		defer c.Close()
		l, err := endpoint.Listen(o.Socket)
		if err != nil {
			t.Error(err)
		}
		other <- l
		_, _ = io.WriteString(c, "listening\n")
	})
	pid, err := Start(t.Context(), o)
	wg.Wait()
	if l := <-other; l != nil {
		defer l.Close()
	}
	if err != nil || pid != 0 {
		t.Errorf("Start = %d, %v; want 0, nil (another server answers)", pid, err)
	}
}

func TestStartOptions(t *testing.T) {
	env(t)
	if _, err := Start(t.Context(), Options{}); err == nil {
		t.Error("Start without a socket succeeded")
	}
	o := opts(t, "x", "serve")
	o.Exe = filepath.Join(t.TempDir(), "missing")
	if _, err := Start(t.Context(), o); err == nil || !strings.Contains(err.Error(), "start the sandmux server") {
		t.Errorf("Start of a missing program: %v", err)
	}
}

// The caller giving up while the server starts stops and reaps it.
func TestStartCancelled(t *testing.T) {
	env(t)
	ctlPath := filepath.Join(t.TempDir(), "ctl.sock")
	ctl, err := net.Listen("unix", ctlPath)
	if err != nil {
		t.Fatal(err)
	}
	defer ctl.Close()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	// The connection stays open until Start returns: the helper exits
	// of itself when it closes.
	up := make(chan net.Conn, 1)
	var wg sync.WaitGroup
	wg.Go(func() {
		c, err := ctl.Accept()
		if err != nil {
			t.Error(err)
		}
		up <- c
		cancel() // The server is up and not listening.
	})
	_, err = Start(ctx, opts(t, "slow", "wait", ctlPath))
	wg.Wait()
	if c := <-up; c != nil {
		_ = c.Close()
	}
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "helper wait up") {
		t.Errorf("Start cancelled: %v, want context.Canceled and the log", err)
	}
}

// A stopped server's start lock is removed, unless a client holds it.
func TestRemoveLock(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "x.sock")
	if err := RemoveLock(sock); err != nil {
		t.Fatalf("RemoveLock without a lock file: %v", err)
	}
	held, err := openLock(sock)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := tryLock(held); !ok || err != nil {
		t.Fatalf("take the lock: %v %v", ok, err)
	}
	if err := RemoveLock(sock); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(sock + ".lock"); err != nil {
		t.Fatalf("a held lock was removed: %v", err)
	}
	_ = held.Close()
	if err := RemoveLock(sock); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(sock + ".lock"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a free lock was left: %v", err)
	}
}

// Contract A4: the start lock is never opened through a symbolic link,
// so a link planted there cannot make sandmux create or truncate a file
// elsewhere; nor is a lock file someone else made taken.
func TestContract_A4_StartLockRefusesLinks(t *testing.T) {
	env(t)
	o := opts(t, "linked", "serve")
	if err := endpoint.PrepareDir(o.Socket); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(t.TempDir(), "chosen")
	if err := os.Symlink(target, o.Socket+".lock"); err != nil {
		t.Fatal(err)
	}
	if _, err := Start(t.Context(), o); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("Start with a linked lock: %v, want a refusal naming the link", err)
	}
	if err := RemoveLock(o.Socket); err == nil {
		t.Errorf("RemoveLock of a linked lock: no error")
	}
	if _, err := os.Lstat(target); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the link was followed: %s exists (%v)", target, err)
	}
	if _, err := os.Lstat(o.Socket + ".lock"); err != nil {
		t.Errorf("the planted link was removed: %v", err)
	}
}
