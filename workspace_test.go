package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sandmux/sandmux/config"
	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/providers/all"
	"github.com/sandmux/sandmux/providers/local"
	"github.com/sandmux/sandmux/session"
	"github.com/sandmux/sandmux/snapshot"
	"github.com/sandmux/sandmux/workspace"
)

// testSandbox is a local sandbox whose workspace and store live in t's temp
// directory.
func testSandbox(t *testing.T, policy config.SnapshotPolicy, restore config.RestorePolicy) (config.Sandbox, workspace.Policy) {
	t.Helper()
	dir := t.TempDir()
	sb := config.Sandbox{
		Name: "box", Provider: "local", Command: []string{"sh", "-c", "echo hi > made-by-shell; sleep 1000"},
		Workspace: filepath.Join(dir, "ws"), Size: providers.Size{Cols: 80, Rows: 24},
		StopGrace: time.Second, KillGrace: time.Second, DrainGrace: time.Second,
		Snapshot: policy, Restore: restore, SnapshotKeep: 5, SnapshotExclude: []string{"*.log"},
	}
	return sb, workspace.Policy{Registry: all.Registry, Store: filepath.Join(dir, "store"), Providers: providers.Table{"local": local.New("")}}
}

// run starts sb through a real Manager, waits for its shell to have
// written its file, and tears it down the way teardown says.
func runSandbox(t *testing.T, sb config.Sandbox, ws workspace.Policy, teardown func(*session.Manager, session.ID) error) session.Info {
	t.Helper()
	notice, err := ws.Prepare(sb)(t.Context())
	if err != nil || notice != "" && notice != "created workspace "+sb.Workspace {
		t.Fatalf("prepare: %q, %v", notice, err)
	}
	m := session.NewManager(ws.Providers)
	defer m.Wait()
	spec := sb.Spec()
	s, err := m.Start(t.Context(), "local", spec, session.Options{StopGrace: sb.StopGrace, KillGrace: sb.KillGrace, AfterTeardown: ws.Hook(sb)})
	if err != nil {
		t.Fatal(err)
	}
	waitFile(t, filepath.Join(sb.Workspace, "made-by-shell"))
	if err := teardown(m, s.ID()); err != nil {
		t.Fatalf("teardown: %v", err)
	}
	return s.Info()
}

func waitFile(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never appeared", path)
		}
		time.Sleep(10 * time.Millisecond) // poll: a file's appearance has no event here
	}
}

var (
	closeIt    = func(m *session.Manager, id session.ID) error { return m.Close(context.Background(), id) }
	killIt     = func(m *session.Manager, id session.ID) error { return m.Kill(context.Background(), id) }
	shutdownIt = func(m *session.Manager, _ session.ID) error { return m.Shutdown(context.Background()) }
)

// Each policy snapshots for exactly the teardowns it names.
func TestSnapshotPolicies(t *testing.T) {
	cases := []struct {
		policy   config.SnapshotPolicy
		teardown func(*session.Manager, session.ID) error
		how      string
		want     bool
	}{
		{config.SnapshotNever, closeIt, "close", false},
		{config.SnapshotOnClose, closeIt, "close", true},
		{config.SnapshotOnClose, killIt, "kill", true},
		{config.SnapshotOnClose, shutdownIt, "quit", false},
		{config.SnapshotOnQuit, closeIt, "close", false},
		{config.SnapshotOnQuit, shutdownIt, "quit", true},
		{config.SnapshotAlways, closeIt, "close", true},
		{config.SnapshotAlways, shutdownIt, "quit", true},
	}
	for _, c := range cases {
		t.Run(string(c.policy)+"/"+c.how, func(t *testing.T) {
			sb, ws := testSandbox(t, c.policy, config.RestoreOff)
			info := runSandbox(t, sb, ws, c.teardown)
			entries, err := ws.StoreFor(sb).List(sb.Name)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(entries) == 1; got != c.want {
				t.Fatalf("snapshots: %d, want one: %v", len(entries), c.want)
			}
			if c.want && (info.Saved != entries[0].Path || entries[0].Manifest.Files != 1) {
				t.Errorf("saved %q, entry %+v", info.Saved, entries[0])
			}
		})
	}
}

// A snapshot taken on close comes back on the next start: into an empty
// workspace with restore = true, refused (with a notice, the workspace
// untouched) into a non-empty one, and replacing it with "replace".
func TestRestorePolicies(t *testing.T) {
	sb, ws := testSandbox(t, config.SnapshotOnClose, config.RestoreOff)
	if err := os.MkdirAll(sb.Workspace, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(sb.Workspace, "work.txt"), []byte("precious"), 0o644)
	os.WriteFile(filepath.Join(sb.Workspace, "noise.log"), []byte("excluded"), 0o644)
	runSandbox(t, sb, ws, closeIt)

	// restore = true into a missing workspace.
	os.RemoveAll(sb.Workspace)
	sb.Restore = config.RestoreIfEmpty
	notice, err := ws.Prepare(sb)(t.Context())
	if err != nil || !strings.HasPrefix(notice, "restored") {
		t.Fatalf("restore into empty: %q, %v", notice, err)
	}
	if b, _ := os.ReadFile(filepath.Join(sb.Workspace, "work.txt")); string(b) != "precious" {
		t.Errorf("work.txt = %q after restore", b)
	}
	if _, err := os.Stat(filepath.Join(sb.Workspace, "noise.log")); !os.IsNotExist(err) {
		t.Errorf("an excluded file came back: %v", err)
	}

	// restore = true into a non-empty workspace: refused, untouched.
	os.WriteFile(filepath.Join(sb.Workspace, "work.txt"), []byte("newer"), 0o644)
	notice, err = ws.Prepare(sb)(t.Context())
	if err != nil || !strings.Contains(notice, "restore refused") || !strings.Contains(notice, "replace") {
		t.Fatalf("restore into non-empty: %q, %v; want a refusal that says how to replace", notice, err)
	}
	if b, _ := os.ReadFile(filepath.Join(sb.Workspace, "work.txt")); string(b) != "newer" {
		t.Errorf("a refused restore changed the workspace: %q", b)
	}

	// restore = "replace".
	sb.Restore = config.RestoreReplace
	if notice, err = ws.Prepare(sb)(t.Context()); err != nil || !strings.HasPrefix(notice, "restored") {
		t.Fatalf("replace: %q, %v", notice, err)
	}
	if b, _ := os.ReadFile(filepath.Join(sb.Workspace, "work.txt")); string(b) != "precious" {
		t.Errorf("work.txt = %q after replace", b)
	}
}

// Snapshots start only once teardown settled (C11): the hook sees the
// sandbox's processes gone, and the archive holds what the shell wrote.
func TestContract_C11_SnapshotAfterProcessesGone(t *testing.T) {
	sb, ws := testSandbox(t, config.SnapshotOnClose, config.RestoreOff)
	sb.Command = []string{"sh", "-c", `echo "$$" > pid; echo hi > made-by-shell; while :; do date >> clock.log; sleep 0.01; done`}
	hook := ws.Hook(sb)
	var alive []string
	ws2 := ws
	wrapped := func(ctx context.Context, info session.Info, stage func(string)) (string, error) {
		b, _ := os.ReadFile(filepath.Join(sb.Workspace, "pid"))
		if pid := strings.TrimSpace(string(b)); pid != "" {
			alive = processesInGroup(atoi(t, pid))
		}
		return hook(ctx, info, stage)
	}
	m := session.NewManager(ws2.Providers)
	defer m.Wait()
	if _, err := ws.Prepare(sb)(t.Context()); err != nil {
		t.Fatal(err)
	}
	s, err := m.Start(t.Context(), "local", sb.Spec(), session.Options{StopGrace: time.Second, KillGrace: time.Second, AfterTeardown: wrapped})
	if err != nil {
		t.Fatal(err)
	}
	waitFile(t, filepath.Join(sb.Workspace, "made-by-shell"))
	if err := m.Close(context.Background(), s.ID()); err != nil {
		t.Fatal(err)
	}
	if len(alive) > 0 {
		t.Errorf("the snapshot hook ran while processes of the group lived: %v", alive)
	}
	if _, err := snapshot.Verify(t.Context(), s.Info().Saved, snapshot.VerifyOptions{}); err != nil {
		t.Errorf("the snapshot does not verify: %v", err)
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			t.Fatalf("not a number: %q", s)
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// snapshot ls -c FILE lists only the config's sandboxes.
func TestSnapshotListConfig(t *testing.T) {
	dir := t.TempDir()
	store := &snapshot.Store{Root: filepath.Join(dir, "store")}
	ws := filepath.Join(dir, "ws")
	os.MkdirAll(ws, 0o755)
	os.WriteFile(filepath.Join(ws, "f"), []byte("x"), 0o644)
	for _, name := range []string{"box", "other"} {
		if _, err := store.Save(t.Context(), name, snapshot.DirSource(ws), snapshot.SaveOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(dir, "sandmux.toml")
	os.WriteFile(cfg, []byte("[[sandbox]]\nname = \"box\"\n"), 0o644)
	var out, errOut strings.Builder
	code := run([]string{"snapshot", "ls", "-c", cfg, "--store", store.Root}, stdio{out: &out, err: &errOut})
	if code != exitOK || !strings.Contains(out.String(), "box") || strings.Contains(out.String(), "other") {
		t.Errorf("exit %d, stdout %q, stderr %q; want box only", code, out.String(), errOut.String())
	}
}

// A local workspace that does not exist is created at the start, and
// the pane is told so once: the next start finds it.
func TestPrepareSaysItCreatedTheWorkspace(t *testing.T) {
	sb, ws := testSandbox(t, config.SnapshotNever, config.RestoreOff)
	if notice, err := ws.Prepare(sb)(t.Context()); err != nil || notice != "created workspace "+sb.Workspace {
		t.Fatalf("first prepare: %q, %v; want it to say it created the workspace", notice, err)
	}
	if fi, err := os.Stat(sb.Workspace); err != nil || !fi.IsDir() {
		t.Fatalf("the workspace: %v", err)
	}
	if notice, err := ws.Prepare(sb)(t.Context()); err != nil || notice != "" {
		t.Fatalf("second prepare: %q, %v; want nothing to say", notice, err)
	}
}
