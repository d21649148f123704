package ssh

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandmux/sandmux/providers"
)

// makeTree fills dir with a small workspace: nested files, an executable,
// a symlink, an empty directory and a name with spaces and quotes.
func makeTree(t *testing.T, dir string) {
	t.Helper()
	for name, body := range map[string]string{
		"README.md":                "hello\n",
		"src/main.go":              "package main\n",
		"src/deep/er/data.bin":     strings.Repeat("\x00\xff", 70000),
		"it's a \"name\" with.txt": "quotes\n",
	} {
		f := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, f, body)
	}
	if err := os.WriteFile(filepath.Join(dir, "run.sh"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("src/main.go", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o700); err != nil {
		t.Fatal(err)
	}
}

// tree describes dir: each path with its mode and content or link target.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		desc := info.Mode().String()
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			desc += " -> " + target
		case info.Mode().IsRegular():
			b, _ := os.ReadFile(p)
			desc += " " + string(b)
		}
		out[rel] = desc
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func equalTrees(t *testing.T, got, want map[string]string) {
	t.Helper()
	for k, w := range want {
		if g, ok := got[k]; !ok || g != w {
			t.Errorf("%s: got %.60q, want %.60q", k, g, w)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: unexpected", k)
		}
	}
}

// Export, then extract the stream locally; import it into a fresh and into
// a stale workspace: all three trees equal the original.
func TestWorkspaceRoundTrip(t *testing.T) {
	s := startServer(t)
	p := New(nil)
	src := filepath.Join(t.TempDir(), "work space")
	makeTree(t, src)
	want := tree(t, src)

	var stream bytes.Buffer
	if err := p.ExportWorkspace(t.Context(), providers.Spec{Name: "w", Dir: src, Options: s.options(t, "")}, &stream); err != nil {
		t.Fatal(err)
	}
	local := t.TempDir()
	cmd := exec.Command("tar", "-C", local, "-xf", "-")
	cmd.Stdin = bytes.NewReader(stream.Bytes())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("extract the exported stream: %v\n%s", err, out)
	}
	equalTrees(t, tree(t, local), want)

	fresh := filepath.Join(t.TempDir(), "new", "ws")
	if err := p.ImportWorkspace(t.Context(), providers.Spec{Name: "w", Dir: fresh, Options: s.options(t, "")}, bytes.NewReader(stream.Bytes())); err != nil {
		t.Fatal(err)
	}
	equalTrees(t, tree(t, fresh), want)

	stale := t.TempDir()
	writeFile(t, filepath.Join(stale, "old.txt"), "stale\n")
	if err := p.ImportWorkspace(t.Context(), providers.Spec{Name: "w", Dir: stale, Options: s.options(t, "")}, bytes.NewReader(stream.Bytes())); err != nil {
		t.Fatal(err)
	}
	equalTrees(t, tree(t, stale), want)
	for _, leftover := range []string{stale + ".sandmux-import", stale + ".sandmux-old"} {
		if _, err := os.Lstat(leftover); err == nil {
			t.Errorf("%s left behind", leftover)
		}
	}
}

// A broken stream fails the import and leaves the workspace as it was.
func TestWorkspaceImportBrokenStreamKeepsWorkspace(t *testing.T) {
	s := startServer(t)
	ws := t.TempDir()
	makeTree(t, ws)
	want := tree(t, ws)
	err := New(nil).ImportWorkspace(t.Context(), providers.Spec{Name: "w", Dir: ws, Options: s.options(t, "")},
		strings.NewReader(strings.Repeat("not a tar stream ", 100)))
	if err == nil || !strings.Contains(err.Error(), "tar") {
		t.Fatalf("ImportWorkspace of garbage = %v, want tar's complaint", err)
	}
	equalTrees(t, tree(t, ws), want)
}

func TestWorkspaceErrors(t *testing.T) {
	s := startServer(t)
	p := New(nil)
	for _, c := range []struct {
		dir, want string
	}{
		{"", "none is set"},
		{"/", "not a directory sandmux may"},
		{filepath.Join(t.TempDir(), "missing"), "missing"},
	} {
		err := p.ExportWorkspace(t.Context(), providers.Spec{Name: "w", Dir: c.dir, Options: s.options(t, "")}, io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ExportWorkspace(%q) = %v, want an error about %q", c.dir, err, c.want)
		}
	}
}

// A cancelled export returns the cause only after it stopped writing.
func TestWorkspaceExportCancelled(t *testing.T) {
	s := startServer(t)
	ws := t.TempDir()
	makeTree(t, ws)
	ctx, cancel := context.WithCancelCause(t.Context())
	cause := errors.New("quit")
	w := &cancellingWriter{cancel: func() { cancel(cause) }}
	err := New(nil).ExportWorkspace(ctx, providers.Spec{Name: "w", Dir: ws, Options: s.options(t, "")}, w)
	if !errors.Is(err, cause) {
		t.Fatalf("ExportWorkspace = %v, want the cause", err)
	}
	w.returned = true // any write from now on is a write after return
	if w.lateWrite {
		t.Error("the stream was written after ExportWorkspace returned")
	}
}

// cancellingWriter cancels at its first write and records writes that come
// after the export returned.
type cancellingWriter struct {
	cancel    func()
	returned  bool
	lateWrite bool
}

func (w *cancellingWriter) Write(p []byte) (int, error) {
	if w.returned {
		w.lateWrite = true
	}
	w.cancel()
	return len(p), nil
}

// A workspace that does not exist is providers.ErrNoWorkspace, so that a
// restore can treat it as empty; one that cannot be read is not.
func TestWorkspaceExportMissingIsErrNoWorkspace(t *testing.T) {
	s := startServer(t)
	p := New(nil)
	missing := filepath.Join(t.TempDir(), "missing")
	err := p.ExportWorkspace(t.Context(), providers.Spec{Name: "w", Dir: missing, Options: s.options(t, "")}, io.Discard)
	if !errors.Is(err, providers.ErrNoWorkspace) {
		t.Errorf("ExportWorkspace of a missing workspace = %v, want providers.ErrNoWorkspace", err)
	}
	file := filepath.Join(t.TempDir(), "file")
	writeFile(t, file, "not a directory\n")
	err = p.ExportWorkspace(t.Context(), providers.Spec{Name: "w", Dir: file, Options: s.options(t, "")}, io.Discard)
	if err == nil || errors.Is(err, providers.ErrNoWorkspace) {
		t.Errorf("ExportWorkspace of a file = %v, want a failure that is not providers.ErrNoWorkspace", err)
	}
}
