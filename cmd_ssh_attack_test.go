package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// The SSH attacks of issue 20, with the real OpenSSH client against the
// real server. The memory bounds are checked against the server's peak
// resident set (the kernel's VmHWM), which no timing changes, on a build
// without -race, as users run it.

// memoryBound is how much the server may grow while attacked.
const memoryBound = 100 << 20

var plain struct {
	once sync.Once
	bin  string
	err  error
}

// attackBin is the binary the attacks run: sandmux built without -race,
// next to sandmuxBin, or SANDMUX_ATTACK_BIN (another build, an older one
// to see the attacks succeed on it).
func attackBin(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("SANDMUX_ATTACK_BIN"); bin != "" {
		return bin
	}
	plain.once.Do(func() {
		plain.bin = filepath.Join(filepath.Dir(sandmuxBin), "sandmux-plain")
		out, err := exec.Command("go", "build", "-buildvcs=auto", "-o", plain.bin, ".").CombinedOutput()
		if err != nil {
			plain.err = fmt.Errorf("build sandmux without -race: %w: %s", err, out)
		}
	})
	if plain.err != nil {
		t.Fatal(plain.err)
	}
	return plain.bin
}

// procStatus reads one field of /proc/PID/status, in bytes.
func procStatus(t *testing.T, pid int, field string) int64 {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("read the server's memory: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("%s: %q", field, v)
			}
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// memoryWatch kills the server once its resident set passes limit, so a
// server that grows without bound fails the test instead of the machine.
type memoryWatch struct {
	exceeded chan int64 // the resident set that passed the limit
	stop     chan struct{}
	done     chan struct{}
}

func watchMemory(t *testing.T, pid int, limit int64) *memoryWatch {
	w := &memoryWatch{exceeded: make(chan int64, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go func() { // Joined by the cleanup: done.
		defer close(w.done)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-w.stop:
				return
			case <-tick.C:
			}
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
			if err != nil {
				return // exited
			}
			if m := regexp.MustCompile(`VmRSS:\s+(\d+) kB`).FindSubmatch(b); m != nil {
				if kb, _ := strconv.ParseInt(string(m[1]), 10, 64); kb<<10 > limit {
					_ = syscall.Kill(pid, syscall.SIGKILL) // Best effort: the test fails either way.
					w.exceeded <- kb << 10
					return
				}
			}
		}
	}()
	t.Cleanup(func() { close(w.stop); <-w.done })
	return w
}

// check fails the test if the server grew past the bound, and logs the
// figures.
func (w *memoryWatch) check(t *testing.T, srv *served, base int64, what string) {
	t.Helper()
	select {
	case rss := <-w.exceeded:
		t.Fatalf("%s: the server's memory grew from %d MiB to %d MiB, past the %d MiB allowed: killed", what, base>>20, rss>>20, memoryBound>>20)
	default:
	}
	peak := procStatus(t, srv.cmd.Process.Pid, "VmHWM")
	t.Logf("%s: server memory %d MiB at the start, peak %d MiB (+%d MiB; bound +%d MiB)", what, base>>20, peak>>20, (peak-base)>>20, memoryBound>>20)
	if peak-base > memoryBound {
		t.Errorf("%s: the server's peak memory grew by %d MiB, past the %d MiB allowed", what, (peak-base)>>20, memoryBound>>20)
	}
}

// sshServe starts a server serving SSH with the config's [server] keys
// line and one sandbox running command, and returns it and its port. Its
// rings keep their past in memory: waitStalled counts what the server
// writes, and a flooding pane's ring would write its file all along.
func sshServe(t *testing.T, bin, keysLine, command string) (*served, string) {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "sandmux.toml")
	writeConfig(t, cfg, fmt.Sprintf("[server]\nssh_listen = \"127.0.0.1:0\"\n%s\n\n[record]\nspill = false\n\n[[sandbox]]\nname = \"p\"\ncommand = %s\n", keysLine, command))
	srv := startServe(t, bin, serverSocket(dir), isolatedEnv(dir), "-c", cfg)
	port := srv.waitLog("its SSH address", regexp.MustCompile(`serving SSH on 127\.0\.0\.1:(\d+)$`))[1]
	return srv, port
}

// seenWriter takes a client's output and notes which of the strings it
// was made to look for have gone by, keeping only a short tail (a
// string may straddle two writes).
type seenWriter struct {
	mu   sync.Mutex
	tail []byte
	want []string
	seen map[string]bool
	grew chan struct{}
}

func newSeenWriter(want ...string) *seenWriter {
	return &seenWriter{want: want, seen: map[string]bool{}, grew: make(chan struct{}, 1)}
}

func (w *seenWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.tail = append(w.tail, p...)
	for _, s := range w.want {
		if bytes.Contains(w.tail, []byte(s)) {
			w.seen[s] = true
		}
	}
	if keep := 256; len(w.tail) > keep {
		w.tail = append(w.tail[:0], w.tail[len(w.tail)-keep:]...)
	}
	w.mu.Unlock()
	select {
	case w.grew <- struct{}{}:
	default:
	}
	return len(p), nil
}

// waitFor waits until s went by; a memory watch that killed the server
// fails the test at once, saying so.
func (w *seenWriter) waitFor(t *testing.T, s string, watch *memoryWatch) {
	t.Helper()
	deadline := time.NewTimer(60 * time.Second)
	defer deadline.Stop()
	for {
		w.mu.Lock()
		ok := w.seen[s]
		w.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-w.grew:
		case rss := <-watch.exceeded:
			t.Fatalf("the server's memory passed %d MiB before the SSH client showed %q: killed", rss>>20, s)
		case <-deadline.C:
			t.Fatalf("the SSH client never showed %q", s)
		}
	}
}

// Attack 2 of issue 20: a read-only key attaches from a 65535×65535
// terminal (and, as the worst case, a key that may type, whose size the
// panes then take). The size is clamped (and logged); the server stays
// within memoryBound of where it started and answers ctl.
func TestContract_A10_HugeSSHTerminalBounded(t *testing.T) {
	need(t, "ssh", "ssh-keygen")
	for _, c := range []struct{ name, keys, access, shows string }{
		{"read-only", "ssh_read_only_keys", "read-only", "READ-ONLY"},
		{"read-write", "ssh_authorized_keys", "read-write", "pane-up"},
	} {
		t.Run(c.name, func(t *testing.T) { hugeTerminal(t, c.keys, c.access, c.shows) })
	}
}

func hugeTerminal(t *testing.T, keys, access, shows string) {
	bin := attackBin(t)
	key, fp := sshKey(t, t.TempDir(), "k")
	srv, port := sshServe(t, bin, fmt.Sprintf("%s = %q", keys, key+".pub"), `["sh", "-c", "seq 1 3000; echo pane-up; exec cat"]`)
	srv.waitScreen("1", "pane-up")
	pid := srv.cmd.Process.Pid
	base := procStatus(t, pid, "VmRSS")
	watch := watchMemory(t, pid, base+memoryBound)

	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 65535, Cols: 65535}); err != nil {
		t.Fatal(err)
	}
	argv := strings.Fields(sshCommand(key, port, ""))
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_ = tty.Close() // Best effort: ssh holds its own copy.
	out := newSeenWriter(shows, "pane-up")
	copied := make(chan struct{})
	go func() { defer close(copied); _, _ = io.Copy(out, ptmx) }() // Joined below: EIO once ssh is gone.
	defer func() {
		_ = cmd.Process.Kill() // Best effort: Wait reaps it.
		_ = cmd.Wait()
		<-copied
	}()

	out.waitFor(t, shows, watch)
	// The view drew with the pane in it.
	out.waitFor(t, "pane-up", watch)
	if ls := srv.ctl("ls"); !strings.Contains(ls, "running") {
		t.Errorf("ctl ls while the huge terminal is attached:\n%s", ls)
	}
	watch.check(t, srv, base, "a 65535x65535 terminal over SSH, "+access)
	srv.waitLog("the attach", regexp.MustCompile(`ssh: attached ssh \S+ `+regexp.QuoteMeta(fp)+` .*\(`+access+`, TERM \S+, 65535x65535\)`))
	srv.waitLog("the clamp", regexp.MustCompile(`client \d+: terminal size 65535x65535 is over the 1000x500 bound: it is drawn at 1000x500`))
}

// stalledSSH runs `sleep | ssh -tt … | sleep`: ssh stays connected (it
// answers keepalives) and never reads what it is sent, so once its pipe
// and window are full, writes to it wait.
func stalledSSH(t *testing.T, key, port string) {
	t.Helper()
	cmd := exec.Command("sh", "-c", "sleep 100000 | "+sshCommand(key, port, "")+" | sleep 100000")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // Best effort: the whole pipeline.
		_ = cmd.Wait()
	})
}

// waitStalled waits until the server's writes to a client that reads
// nothing wait: it has written most of the window OpenSSH gives a
// session channel (about 1 MiB; its /proc/PID/io wchar since since, the
// pane's output being read, not written, and its ring kept in memory,
// sshServe), and then hardly anything for a second. The second only decides when the test attacks; its verdict
// never depends on it.
func (s *served) waitStalled(since int64) {
	s.t.Helper()
	s.waitFor("the server to fill the stalled client's window", func() bool {
		return s.wchar()-since >= 512<<10
	})
	s.waitFor("the server's writes to wait", func() bool {
		w := s.wchar()
		time.Sleep(time.Second)
		return s.wchar()-w < 16<<10
	})
}

// wchar is what the server has written so far, in bytes.
func (s *served) wchar() int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", s.cmd.Process.Pid))
	if err != nil {
		s.t.Fatalf("read the server's I/O counts: %v", err)
	}
	m := regexp.MustCompile(`wchar: (\d+)`).FindSubmatch(b)
	if m == nil {
		s.t.Fatalf("no wchar in /proc/%d/io", s.cmd.Process.Pid)
	}
	n, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return n
}

// waitFor polls cond until it holds; the bound is a failure's, not a
// timer the test relies on.
func (s *served) waitFor(what string, cond func() bool) {
	s.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			s.t.Fatalf("timed out waiting for %s; the server's log:\n%s", what, s.logText())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitExit waits for the server to exit (its log ends) and says how long
// it took from start.
func (s *served) waitExit(t *testing.T, start time.Time, what string) time.Duration {
	t.Helper()
	select {
	case <-s.read:
	case <-time.After(2 * time.Minute):
		t.Fatalf("%s: the server had not exited %v later; its log:\n%s", what, time.Since(start).Round(time.Second), s.logText())
	}
	took := time.Since(start)
	t.Logf("%s: the server exited %v later", what, took.Round(10*time.Millisecond))
	return took
}

// Attack 3 of issue 20: a client that never reads is attached to a
// flooding pane; ctl quit ends the server all the same.
func TestContract_A11_StalledSSHClientDoesNotHoldTheQuit(t *testing.T) {
	need(t, "ssh", "ssh-keygen", "base64")
	key, fp := sshKey(t, t.TempDir(), "rw")
	srv, port := sshServe(t, attackBin(t), fmt.Sprintf("ssh_authorized_keys = %q", key+".pub"), `["sh", "-c", "echo flooding-the-pane; exec base64 /dev/urandom"]`)
	srv.waitFor("the pane to flood", func() bool { return strings.Contains(srv.ctl("ls"), "running") })
	written := srv.wchar()
	stalledSSH(t, key, port)
	srv.waitLog("the attach", regexp.MustCompile(`ssh: attached ssh \S+ `+regexp.QuoteMeta(fp)))
	srv.waitStalled(written)
	start := time.Now()
	srv.ctl("quit")
	srv.waitExit(t, start, "ctl quit with a stalled SSH client on a flooding pane")
}

// A second SIGTERM ends the server at once, however the first one's quit
// and the clients are doing: the panes are killed and every client is
// cut off.
func TestContract_A12_SecondSIGTERMEndsAtOnce(t *testing.T) {
	need(t, "ssh", "ssh-keygen", "base64")
	key, fp := sshKey(t, t.TempDir(), "rw")
	srv, port := sshServe(t, attackBin(t), fmt.Sprintf("ssh_authorized_keys = %q", key+".pub"),
		`["sh", "-c", "trap '' TERM HUP; echo flooding-the-pane; base64 /dev/urandom"]`)
	srv.waitFor("the pane to flood", func() bool { return strings.Contains(srv.ctl("ls"), "running") })
	written := srv.wchar()
	stalledSSH(t, key, port)
	srv.waitLog("the attach", regexp.MustCompile(`ssh: attached ssh \S+ `+regexp.QuoteMeta(fp)))
	srv.waitStalled(written)
	start := time.Now()
	if err := srv.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// The first is taken (two sent at once could be one signal): the
	// pane, which ignores SIGTERM, is closing.
	srv.waitFor("the quit to begin", func() bool { return strings.Contains(srv.ctl("ls"), "closing") })
	if err := srv.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	srv.waitExit(t, start, "two SIGTERMs with a stalled SSH client on a flooding pane")
	if log := srv.logText(); !strings.Contains(log, "second signal: killing every pane and cutting off every client") {
		t.Errorf("the server's log does not say what the second SIGTERM did:\n%s", log)
	}
}

// Attack 4 of issue 20: a read-only key sends ESC[200~ and then 200 MB
// with no end marker. The paste never reaches the decoder (a read-only
// client's is dropped before it), and the server stays within
// memoryBound of where it started.
func TestContract_A13_ReadOnlyEndlessPasteBounded(t *testing.T) {
	need(t, "ssh", "ssh-keygen", "head", "tr")
	bin := attackBin(t)
	roKey, roFP := sshKey(t, t.TempDir(), "ro")
	srv, port := sshServe(t, bin, fmt.Sprintf("ssh_read_only_keys = %q", roKey+".pub"), `["sh", "-c", "echo pane-up; exec cat"]`)
	srv.waitScreen("1", "pane-up")
	pid := srv.cmd.Process.Pid
	base := procStatus(t, pid, "VmRSS")
	watch := watchMemory(t, pid, base+memoryBound)

	const size = 200 << 20
	// The paste ends with ssh's input: its EOF ends the attachment.
	cmd := exec.Command("sh", "-c", fmt.Sprintf(`{ printf '\033[200~'; head -c %d /dev/zero | tr '\0' a; } | %s >/dev/null 2>&1`, size, sshCommand(roKey, port, "")))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	go func() { ended <- cmd.Wait() }() // Joined below.
	select {
	case <-ended:
	case <-time.After(10 * time.Minute):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // Best effort: the test failed.
		<-ended
		t.Fatalf("ssh had not sent %d MB after 10 minutes", size>>20)
	}
	t.Logf("ssh sent ESC[200~ and %d MB in %v", size>>20, time.Since(start).Round(time.Second))
	watch.check(t, srv, base, fmt.Sprintf("ESC[200~ and %d MB from a read-only key", size>>20))
	srv.waitLog("the attach", regexp.MustCompile(`ssh: attached ssh \S+ `+regexp.QuoteMeta(roFP)+` .*\(read-only`))
	srv.waitLog("the end of the attachment", regexp.MustCompile(`client \d+ detached: its terminal went away`))
	if ls := srv.ctl("ls"); !strings.Contains(ls, "running") {
		t.Errorf("ctl ls after the paste:\n%s", ls)
	}
}
