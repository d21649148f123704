package snapshot

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestContract_W4_SaveKilledMidwayLeavesPreviousSnapshot builds sandmux,
// saves a small workspace, then SIGKILLs a second save to the same name
// while its temp file grows: the previous snapshot and its manifest are
// intact and verify, and `snapshot ls` lists no partial file.
func TestContract_W4_SaveKilledMidwayLeavesPreviousSnapshot(t *testing.T) {
	bin := buildSandmux(t)
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "store", "sb")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(dir, "20260101T000000.000Z.tar.zst")
	small := filepath.Join(tmp, "small")
	writeTree(t, small)
	sandmux(t, bin, "snapshot", "save", small, "-o", archive)
	prev, _ := os.ReadFile(archive)
	prevManifest, _ := os.ReadFile(ManifestPath(archive))

	// A big workspace that costs no disk: a sparse 64 GiB file reads as
	// zeros for as long as the save takes to get through it.
	big := filepath.Join(tmp, "big")
	writeTree(t, big)
	f, err := os.Create(filepath.Join(big, "zz-sparse.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(64 << 30); err != nil {
		t.Fatal(err)
	}
	_ = f.Close() // Nothing was written through it.

	cmd := exec.Command(bin, "snapshot", "save", big, "-o", archive)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	partial := waitForGrowingTemp(t, dir, 16<<10, exited)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-exited

	if !exists(partial) {
		t.Fatal("the killed save left no partial file; it was not killed midway")
	}
	if cur, _ := os.ReadFile(archive); !bytes.Equal(cur, prev) {
		t.Fatal("the previous snapshot changed")
	}
	if cur, _ := os.ReadFile(ManifestPath(archive)); !bytes.Equal(cur, prevManifest) {
		t.Fatal("the previous snapshot's manifest changed")
	}
	sandmux(t, bin, "snapshot", "verify", archive)
	ls := sandmux(t, bin, "snapshot", "ls", "--store", filepath.Join(tmp, "store"))
	if strings.Count(ls, "\n") != 2 || !strings.Contains(ls, archive) || strings.Contains(ls, tempMarker) {
		t.Errorf("ls lists:\n%s", ls)
	}
	// The dead writer's lock is gone: a later cleanup removes its partial.
	if n, err := removeStale(dir, time.Now().Add(2*staleAge)); n != 1 || err != nil {
		t.Errorf("stale cleanup removed %d (%v), want the partial", n, err)
	}
}

// buildSandmux builds the binary from the module root, found beside this
// package.
func buildSandmux(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if !exists(filepath.Join(root, "go.mod")) {
		t.Fatalf("no go.mod in %s: the test expects snapshot/ at the module root", root)
	}
	bin := filepath.Join(t.TempDir(), "sandmux")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func sandmux(t *testing.T, bin string, args ...string) string {
	t.Helper()
	out, err := exec.Command(bin, args...).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("sandmux %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr)
	}
	return string(out)
}

// waitForGrowingTemp waits, on inotify events rather than a timer, until a
// temp file in dir holds at least min bytes, and returns its path. It
// fails the test if the writer exits first or nothing happens for a
// minute.
func waitForGrowingTemp(t *testing.T, dir string, min int64, exited <-chan error) string {
	t.Helper()
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if _, err := unix.InotifyAddWatch(fd, dir, unix.IN_CREATE|unix.IN_MODIFY); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64<<10)
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if info, err := e.Info(); err == nil && isTemp(e.Name()) && info.Size() >= min {
				return filepath.Join(dir, e.Name())
			}
		}
		select {
		case err := <-exited:
			t.Fatalf("the save ended (%v) before it could be killed midway", err)
		default:
		}
		// Block until the directory changes (or a second passes, to look
		// at the process again).
		if _, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 1000); err != nil && err != unix.EINTR {
			t.Fatal(err)
		}
		_, _ = unix.Read(fd, buf) // Drain the events; the directory is re-read above.
	}
	t.Fatal("no growing temp file within a minute")
	return ""
}
