package main

import (
	"archive/tar"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runSnap runs `sandmux snapshot ARGS` in-process.
func runSnap(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = runSnapshot(context.Background(), args, stdio{in: os.Stdin, out: &out, err: &errb})
	return code, out.String(), errb.String()
}

func writeWorkspace(t *testing.T, dir string) {
	t.Helper()
	for p, body := range map[string]string{"README": "hello\n", "src/main.go": "package main\n", "node_modules/x.js": "x"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSnapshotCommandSaveVerifyRestore(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("XDG_STATE_HOME", filepath.Join(tmp, "state")) // save -o remembers the archive in the default store
	ws := filepath.Join(tmp, "ws")
	writeWorkspace(t, ws)
	archive := filepath.Join(tmp, "ws.tar.zst")
	if code, out, errs := runSnap(t, "save", ws, "-o", archive, "--exclude", "node_modules/"); code != exitOK || !strings.Contains(out, "2 files") {
		t.Fatalf("save: %d %q %q", code, out, errs)
	}
	if code, out, errs := runSnap(t, "verify", archive); code != exitOK || !strings.Contains(out, "matches its manifest") {
		t.Fatalf("verify: %d %q %q", code, out, errs)
	}
	// An archive written with -o is listed with the store's own.
	if code, out, errs := runSnap(t, "ls"); code != exitOK || !strings.Contains(out, archive) {
		t.Fatalf("ls does not list the archive saved with -o: %d %q %q", code, out, errs)
	}
	dst := filepath.Join(tmp, "restored")
	if code, _, errs := runSnap(t, "restore", archive, dst); code != exitOK {
		t.Fatalf("restore: %d %q", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dst, "node_modules")); err == nil {
		t.Error("excluded directory restored")
	}
	// Non-empty: refused with the way out, then allowed with --replace.
	code, _, errs := runSnap(t, "restore", archive, ws)
	if code != exitFailure || !strings.Contains(errs, "--replace") {
		t.Fatalf("restore over a workspace: %d %q", code, errs)
	}
	if code, _, errs := runSnap(t, "restore", "--replace", archive, ws); code != exitOK {
		t.Fatalf("restore --replace: %d %q", code, errs)
	}
}

func TestSnapshotCommandStoreAndList(t *testing.T) {
	tmp := t.TempDir()
	ws := filepath.Join(tmp, "ws")
	writeWorkspace(t, ws)
	store := filepath.Join(tmp, "store")
	for _, sb := range []string{"alpha", "beta"} {
		if code, _, errs := runSnap(t, "save", ws, "--sandbox", sb, "--store", store); code != exitOK {
			t.Fatalf("save %s: %d %q", sb, code, errs)
		}
	}
	code, out, _ := runSnap(t, "ls", "--store", store)
	if code != exitOK || !strings.Contains(out, "alpha") || !strings.Contains(out, "beta") || strings.Count(out, "\n") != 3 {
		t.Fatalf("ls: %d\n%s", code, out)
	}
	code, out, _ = runSnap(t, "ls", "--store", store, "beta")
	if code != exitOK || strings.Contains(out, "alpha") || !strings.Contains(out, " 3 ") {
		t.Fatalf("ls beta: %d\n%s", code, out)
	}
	t.Setenv("XDG_STATE_HOME", filepath.Join(tmp, "state"))
	if code, _, errs := runSnap(t, "ls"); code != exitOK || !strings.Contains(errs, filepath.Join(tmp, "state", "sandmux", "snapshots")) {
		t.Fatalf("ls with the default store: %d %q", code, errs)
	}
}

func TestSnapshotCommandRefusesHostileArchive(t *testing.T) {
	tmp := t.TempDir()
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	_ = tw.WriteHeader(&tar.Header{Name: "../escape", Typeflag: tar.TypeReg, Mode: 0o644, Size: 1}) // Writes to memory.
	_, _ = tw.Write([]byte("x"))
	_ = tw.Close()
	archive := filepath.Join(tmp, "evil.tar")
	if err := os.WriteFile(archive, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"verify", archive}, {"restore", archive, filepath.Join(tmp, "ws")}} {
		code, _, errs := runSnap(t, args...)
		if code != exitFailure || !strings.Contains(errs, `"../escape"`) || !strings.Contains(errs, "check where it came from") {
			t.Errorf("%s: %d %q", args[0], code, errs)
		}
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 1 {
		t.Errorf("refused archive left %d entries", len(entries))
	}
}

func TestSnapshotCommandUsage(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"frobnicate"},
		{"save", "dir"},
		{"save", "dir", "-o", "f", "--sandbox", "x"},
		{"save", "-o", "f"},
		{"restore", "f"},
		{"restore", "f", "d", "extra"},
		{"verify"},
		{"ls", "a", "b"},
		{"restore", "--max-bytes", "lots", "f", "d"},
		{"save", "--nope", "d"},
	} {
		if code, _, errs := runSnap(t, args...); code != exitUsage || errs == "" {
			t.Errorf("%q: exit %d, stderr %q; want usage (2) with a message", args, code, errs)
		}
	}
	if code, out, _ := runSnap(t, "help"); code != exitOK || !strings.Contains(out, "snapshot save DIR -o FILE") {
		t.Errorf("help: %d %q", code, out)
	}
}
