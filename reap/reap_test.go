package reap

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

const helperEnv = "SANDMUX_REAP_TEST_SERVER"

func TestMain(m *testing.M) {
	if dir := os.Getenv(helperEnv); dir != "" {
		os.Exit(helperServer(dir))
	}
	goleak.VerifyTestMain(m)
}

// helperServer is the test binary re-run as a server of socket "s": it
// registers, says so, and holds its record until killed.
func helperServer(dir string) int {
	if _, _, err := Register(dir, Record{Socket: "s", PID: os.Getpid(), Instance: NewInstance()}); err != nil {
		println(err.Error())
		return 1
	}
	println("registered")
	select {}
}

// startHelper runs helperServer and waits until it registered.
func startHelper(t *testing.T, dir string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+dir)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // Best effort: the test may have killed it.
		_ = cmd.Wait()         // killed: its status says so
	})
	sc := bufio.NewScanner(stderr)
	if !sc.Scan() || sc.Text() != "registered" {
		t.Fatalf("the helper server did not register: %q", sc.Text())
	}
	return cmd
}

// Contract A5: a record is reaped only once its server is provably gone
// (its lock free): never while the server lives, whatever its socket; a
// server that released its record leaves nothing to reap; records of
// another socket are not looked at.
func TestContract_A5_OnlyDeadServersOfTheSocketAreReaped(t *testing.T) {
	dir := t.TempDir()
	live := startHelper(t, dir)
	claim, dead, err := Register(dir, Record{Socket: "s", PID: os.Getpid(), Instance: NewInstance()})
	if err != nil {
		t.Fatal(err)
	}
	if len(dead) != 0 {
		t.Fatalf("a live server's record was offered for reaping: %+v", dead[0].Record)
	}
	if err := claim.Release(); err != nil {
		t.Fatal(err)
	}

	// Killed, its lock is free: the next server of "s" reaps it, and a
	// server of another socket does not see it.
	if err := live.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = live.Wait() // killed: its status says so
	other, dead, err := Register(dir, Record{Socket: "t", PID: os.Getpid(), Instance: NewInstance()})
	if err != nil || len(dead) != 0 {
		t.Fatalf("a server of another socket: %d dead, %v; want none", len(dead), err)
	}
	defer other.Release() //nolint:errcheck // Best effort: a temp dir.
	claim, dead, err = Register(dir, Record{Socket: "s", PID: os.Getpid(), Instance: NewInstance()})
	if err != nil {
		t.Fatal(err)
	}
	defer claim.Release() //nolint:errcheck // Best effort: a temp dir.
	if len(dead) != 1 || dead[0].PID != live.Process.Pid {
		t.Fatalf("after the kill: %d dead, want the helper (pid %d)", len(dead), live.Process.Pid)
	}
	var seen []Record
	failing := func(_ context.Context, r Record) ([]string, error) {
		seen = append(seen, r)
		return nil, errors.New("engine away")
	}
	lines, err := Reap(t.Context(), dead, failing)
	if err == nil || len(lines) != 1 || !strings.Contains(lines[0], "nothing was left running") || len(seen) != 1 {
		t.Errorf("Reap with a failing reaper: %q, %v, saw %d", lines, err, len(seen))
	}
	// A failed reap keeps the record for the next server; a cleared one
	// does not.
	again, err := findDeadIn(dir, "s")
	if err != nil || len(again) != 1 {
		t.Fatalf("after a failed reap: %d dead, %v; want the record kept", len(again), err)
	}
	lines, err = Reap(t.Context(), again, func(context.Context, Record) ([]string, error) { return []string{"1 thing"}, nil })
	if err != nil || len(lines) != 1 || !strings.HasSuffix(lines[0], "left when it died: 1 thing") {
		t.Errorf("Reap: %q, %v", lines, err)
	}
	if left, _ := findDeadIn(dir, "s"); len(left) != 0 {
		t.Errorf("after a cleared reap, %d records are left", len(left))
	}
}

// A record cut short by a kill while it was written is dropped, not
// reaped on guesswork.
func TestHalfWrittenRecordDropped(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, socketKey("s"))
	if err := os.MkdirAll(key, 0o700); err != nil {
		t.Fatal(err)
	}
	half := filepath.Join(key, "HALF.json")
	if err := os.WriteFile(half, []byte(`{"socket":"s","pi`), 0o600); err != nil {
		t.Fatal(err)
	}
	claim, dead, err := Register(dir, Record{Socket: "s", PID: os.Getpid(), Instance: NewInstance()})
	if err != nil {
		t.Fatal(err)
	}
	defer claim.Release() //nolint:errcheck // Best effort: a temp dir.
	if len(dead) != 0 {
		t.Errorf("a half-written record was offered for reaping: %+v", dead[0].Record)
	}
	if _, err := os.Stat(half); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the half-written record is still there: %v", err)
	}
}

// findDeadIn is findDead for socket's records under dir.
func findDeadIn(dir, socket string) ([]*Dead, error) {
	return findDead(filepath.Join(dir, socketKey(socket)), socket)
}

// The last server of a socket to release its record takes the socket's
// directory with it, so that server names used once leave nothing; a
// server of the same socket starting at that moment makes the directory
// again.
func TestLastReleaseLeavesNoDirectory(t *testing.T) {
	dir := t.TempDir()
	rec := func() Record { return Record{Socket: "s", PID: os.Getpid(), Instance: NewInstance()} }
	before, _, err := Register(dir, rec())
	if err != nil {
		t.Fatal(err)
	}
	// The server before quits between the next one's scan of the
	// directory and the writing of its record.
	released := false
	beforeCreate = func() {
		if !released {
			released = true
			if err := before.Release(); err != nil {
				t.Error(err)
			}
		}
	}
	defer func() { beforeCreate = func() {} }()
	next, dead, err := Register(dir, rec())
	if err != nil {
		t.Fatalf("a server starting as the one before it released: %v", err)
	}
	if !released || len(dead) != 0 {
		t.Fatalf("released %v, dead %d: want the one before released, and nothing dead", released, len(dead))
	}
	if err := next.Release(); err != nil {
		t.Fatal(err)
	}
	if ents, err := os.ReadDir(dir); err != nil || len(ents) != 0 {
		t.Errorf("after the last release %s holds %v (%v), want nothing", dir, ents, err)
	}
}
