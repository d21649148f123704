package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sandmux/sandmux/config"
	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/providers/all"
	"github.com/sandmux/sandmux/providers/docker"
	"github.com/sandmux/sandmux/providers/ssh"
	"github.com/sandmux/sandmux/session"
	"github.com/sandmux/sandmux/workspace"
)

// remoteSandbox runs one remote sandbox through a real Manager until its
// command wrote a file into the workspace, then closes it: with snapshot =
// "on-close" that archives the workspace through the provider's tar stream.
func snapshotThroughProvider(t *testing.T, sb config.Sandbox, ws workspace.Policy) session.Info {
	t.Helper()
	m := session.NewManager(ws.Providers)
	defer m.Wait()
	s, err := m.Start(t.Context(), sb.Provider, sb.Spec(), session.Options{StopGrace: time.Second, KillGrace: time.Second, AfterTeardown: ws.Hook(sb)})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.Exited():
	case <-time.After(60 * time.Second):
		t.Fatal("the sandbox's command never finished")
	}
	if err := m.Close(context.Background(), s.ID()); err != nil {
		t.Fatalf("close: %v", err)
	}
	return s.Info()
}

// The workspace of an SSH and of a Docker sandbox round-trips through a
// snapshot: saved from the provider's tar stream on close, restored through
// it (replacing what changed since) on the next start.
func TestRemoteWorkspaceSnapshotRoundTrip(t *testing.T) {
	t.Run("ssh", func(t *testing.T) {
		host := startSSHHost(t)
		remoteDir := t.TempDir() // the "remote" host is this machine
		sb, ws := remoteCase(t, "ssh", remoteDir, map[string]any{
			"host": fmt.Sprintf("root@127.0.0.1:%d", host.port), "identity_files": []any{host.userKey},
			"known_hosts": []any{host.knownHostFile},
		})
		ws.Providers["ssh"] = ssh.New(nil)
		roundTrip(t, sb, ws, func() string { return readTree(t, remoteDir) }, func() {
			os.WriteFile(filepath.Join(remoteDir, "notes.txt"), []byte("changed later"), 0o644)
		})
	})
	t.Run("docker", func(t *testing.T) {
		image := busyboxImage(t)
		dir := t.TempDir()
		sb, ws := remoteCase(t, "docker", dir, map[string]any{"image": image})
		ws.Providers["docker"] = docker.New()
		roundTrip(t, sb, ws, func() string { return readTree(t, dir) }, func() {
			os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("changed later"), 0o644)
		})
	})
}

func remoteCase(t *testing.T, provider, dir string, opts map[string]any) (config.Sandbox, workspace.Policy) {
	t.Helper()
	sb := config.Sandbox{
		Name: "remote-" + provider, Provider: provider, Workspace: dir,
		Command: []string{"sh", "-c", "mkdir -p sub && echo 'from the sandbox' > notes.txt && echo nested > sub/deep.txt"},
		Size:    providers.Size{Cols: 80, Rows: 24}, StopGrace: time.Second, KillGrace: time.Second, DrainGrace: time.Second,
		Snapshot: config.SnapshotOnClose, Restore: config.RestoreReplace, SnapshotKeep: 5, Options: opts,
	}
	return sb, workspace.Policy{Registry: all.Registry, Store: filepath.Join(t.TempDir(), "store"), Providers: providers.Table{}}
}

func roundTrip(t *testing.T, sb config.Sandbox, ws workspace.Policy, tree func() string, change func()) {
	t.Helper()
	info := snapshotThroughProvider(t, sb, ws)
	if info.Saved == "" || info.Err != nil {
		t.Fatalf("no snapshot on close: saved %q, err %v", info.Saved, info.Err)
	}
	before := tree()
	if !strings.Contains(before, "notes.txt=from the sandbox") || !strings.Contains(before, "sub/deep.txt=nested") {
		t.Fatalf("the sandbox did not write its files: %s", before)
	}
	change()
	// restore = true refuses the non-empty remote workspace and leaves it.
	changed := tree()
	sb.Restore = config.RestoreIfEmpty
	notice, err := ws.Prepare(sb)(t.Context())
	if err != nil || !strings.Contains(notice, "restore refused") || tree() != changed {
		t.Fatalf("restore = true into a non-empty remote workspace: notice %q, err %v; want a refusal and no change", notice, err)
	}
	sb.Restore = config.RestoreReplace
	notice, err = ws.Prepare(sb)(t.Context())
	if err != nil || !strings.HasPrefix(notice, "restored") {
		t.Fatalf("restore: %q, %v", notice, err)
	}
	if after := tree(); after != before {
		t.Errorf("workspace after restore:\n%s\nwant:\n%s", after, before)
	}
	// restore = true into an emptied workspace restores.
	entries, _ := os.ReadDir(sb.Workspace)
	for _, e := range entries {
		os.RemoveAll(filepath.Join(sb.Workspace, e.Name()))
	}
	sb.Restore = config.RestoreIfEmpty
	if notice, err = ws.Prepare(sb)(t.Context()); err != nil || !strings.HasPrefix(notice, "restored") || tree() != before {
		t.Errorf("restore = true into an empty remote workspace: %q, %v", notice, err)
	}
}

// readTree lists a directory's files and contents, sorted, for comparing.
func readTree(t *testing.T, dir string) string {
	t.Helper()
	out, err := exec.Command("sh", "-c", `cd "$1" && find . -type f | sort | while read f; do printf '%s=%s\n' "${f#./}" "$(cat "$f")"; done`, "sh", dir).Output()
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
