package snapshot

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
)

// gatedExport is a TarSource exporter that writes a file of size bytes in
// 64 KiB writes and, halfway, signals half and waits for gate without
// watching its context: a worker slow to notice cancellation. exited is
// closed when it returns; sawTemp records whether the save's temp file
// still existed at that moment.
type gatedExport struct {
	size    int
	half    chan struct{}
	gate    chan struct{}
	exited  chan struct{}
	dir     string
	sawTemp atomic.Bool
	err     error // returned after the gate, if set
}

func newGatedExport(dir string, size int) *gatedExport {
	return &gatedExport{size: size, dir: dir, half: make(chan struct{}), gate: make(chan struct{}), exited: make(chan struct{})}
}

func (g *gatedExport) export(ctx context.Context, w io.Writer) error {
	defer close(g.exited)
	defer func() { g.sawTemp.Store(hasTemp(g.dir)) }()
	tw := tar.NewWriter(w)
	if err := tw.WriteHeader(&tar.Header{Name: "./data.txt", Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(g.size)}); err != nil {
		return err
	}
	chunk := bytes.Repeat([]byte("workspace bytes\n"), 4096)
	halfway := false
	for done := 0; done < g.size; done += len(chunk) {
		if done >= g.size/2 && !halfway {
			halfway = true
			close(g.half)
			<-g.gate
			if g.err != nil {
				return g.err
			}
		}
		if _, err := tw.Write(chunk[:min(len(chunk), g.size-done)]); err != nil {
			return fmt.Errorf("write to the save: %w", err)
		}
	}
	return tw.Close()
}

func hasTemp(dir string) bool {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if isTemp(e.Name()) {
			return true
		}
	}
	return false
}

// TestContract_W2_CancelledSaveWaitsForTheWorker: a save cancelled while
// its exporter is stuck returns only after the exporter returned, and its
// temp file (the archive stream) is removed only after that.
func TestContract_W2_CancelledSaveWaitsForTheWorker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		archive := filepath.Join(dir, "snap.tar.zst")
		g := newGatedExport(dir, 4<<20)
		ctx, cancel := context.WithCancelCause(context.Background())
		result := make(chan error, 1)
		go func() {
			_, err := Save(ctx, TarSource(g.export), archive, SaveOptions{})
			result <- err
		}()
		<-g.half
		cause := errors.New("pane closed by the user")
		cancel(cause)
		synctest.Wait()
		select {
		case err := <-result:
			t.Fatalf("Save returned (%v) while its exporter was still running", err)
		default:
		}
		close(g.gate)
		err := <-result
		select {
		case <-g.exited:
		default:
			t.Fatal("Save returned before its exporter")
		}
		if !g.sawTemp.Load() {
			t.Error("the temp file was gone before the exporter stopped")
		}
		if !errors.Is(err, cause) {
			t.Errorf("got %v, want the cause", err)
		}
		if hasTemp(dir) || exists(archive) || exists(ManifestPath(archive)) {
			t.Error("a cancelled save left files behind")
		}
	})
}

// TestContract_W2_CancelledRestoreLeavesNothing: a restore cancelled
// midway returns the cause after it stopped writing, the workspace is as it
// was and no temp directory is left; no progress arrives after it returned.
func TestContract_W2_CancelledRestoreLeavesNothing(t *testing.T) {
	src := filepath.Join(t.TempDir(), "src")
	writeTree(t, src)
	archive := filepath.Join(t.TempDir(), "a.tar.zst")
	if _, err := Save(context.Background(), DirSource(src), archive, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	parent := t.TempDir()
	ws := filepath.Join(parent, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "mine"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := treeHash(t, ws)
	ctx, cancel := context.WithCancelCause(context.Background())
	cause := errors.New("quit")
	var returned atomic.Bool
	var late atomic.Int32
	_, err := Restore(ctx, archive, ws, RestoreOptions{Replace: true, OnProgress: func(p Progress) {
		if returned.Load() {
			late.Add(1)
		}
		cancel(cause) // The first report cancels: the restore is under way.
	}})
	returned.Store(true)
	if !errors.Is(err, cause) {
		t.Fatalf("got %v, want the cause", err)
	}
	if treeHash(t, ws) != before {
		t.Error("a cancelled restore changed the workspace")
	}
	if n := names(t, parent); n != "ws\n" {
		t.Errorf("left beside the workspace: %q", n)
	}
	if late.Load() != 0 {
		t.Error("progress arrived after Restore returned")
	}
}

// exportError stands for a provider's failure, e.g. "docker exec: signal:
// killed" after the save was cancelled.
type exportError struct{}

func (exportError) Error() string { return "docker exec: signal: killed" }

// TestContract_W3_WorkerFailureAfterCancelIsSecondary: the caller sees the
// cause first; the exporter's failure is still reachable.
func TestContract_W3_WorkerFailureAfterCancelIsSecondary(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		g := newGatedExport(dir, 1<<20)
		g.err = exportError{}
		ctx, cancel := context.WithCancelCause(context.Background())
		result := make(chan error, 1)
		go func() {
			_, err := Save(ctx, TarSource(g.export), filepath.Join(dir, "s.tar.zst"), SaveOptions{})
			result <- err
		}()
		<-g.half
		cause := errors.New("second Ctrl-C")
		cancel(cause)
		close(g.gate)
		err := <-result
		if !errors.Is(err, cause) || !strings.HasPrefix(err.Error(), cause.Error()) {
			t.Errorf("got %q, want the cause first", err)
		}
		if !errors.As(err, new(exportError)) {
			t.Errorf("got %q, want the exporter's failure joined", err)
		}
	})
}

// TestContract_W3_WorkerFailureWithoutCancelSurfaces (C4 for snapshots).
func TestContract_W3_WorkerFailureWithoutCancelSurfaces(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		g := newGatedExport(dir, 1<<20)
		g.err = exportError{}
		close(g.gate)
		_, err := Save(context.Background(), TarSource(g.export), filepath.Join(dir, "s.tar.zst"), SaveOptions{})
		if !errors.As(err, new(exportError)) {
			t.Fatalf("got %v, want the exporter's failure", err)
		}
		if hasTemp(dir) {
			t.Error("a failed save left its temp file")
		}
	})
}

// TestContract_W4_SnapshotAppearsOnlyComplete: while a save runs, the
// final name still holds the previous snapshot and the new bytes go to a
// temp file in the same directory; a failed save leaves the previous one
// byte for byte; a finished one replaces it with its manifest.
func TestContract_W4_SnapshotAppearsOnlyComplete(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		archive := filepath.Join(dir, "snap.tar.zst")
		ws := filepath.Join(t.TempDir(), "ws")
		writeTree(t, ws)
		if _, err := Save(context.Background(), DirSource(ws), archive, SaveOptions{}); err != nil {
			t.Fatal(err)
		}
		prev, _ := os.ReadFile(archive)
		prevManifest, _ := os.ReadFile(ManifestPath(archive))

		for _, fail := range []bool{true, false} {
			g := newGatedExport(dir, 4<<20)
			if fail {
				g.err = errors.New("provider lost the connection")
			}
			result := make(chan error, 1)
			go func() {
				_, err := Save(context.Background(), TarSource(g.export), archive, SaveOptions{})
				result <- err
			}()
			<-g.half
			synctest.Wait()
			if !hasTemp(dir) {
				t.Error("no temp file beside the archive while saving")
			}
			if cur, _ := os.ReadFile(archive); !bytes.Equal(cur, prev) {
				t.Fatal("the archive changed before the save completed")
			}
			close(g.gate)
			err := <-result
			if hasTemp(dir) {
				t.Error("temp file left after the save")
			}
			cur, _ := os.ReadFile(archive)
			curManifest, _ := os.ReadFile(ManifestPath(archive))
			if fail {
				if err == nil || !bytes.Equal(cur, prev) || !bytes.Equal(curManifest, prevManifest) {
					t.Fatalf("failed save: err %v, previous snapshot kept: %v", err, bytes.Equal(cur, prev))
				}
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			r, err := Verify(context.Background(), archive, VerifyOptions{})
			if err != nil || r.Manifest == nil || r.Bytes != 4<<20 {
				t.Fatalf("new snapshot: %+v, %v", r, err)
			}
		}
	})
}

// TestContract_W1_SaveRunsOffTheLoop stands in for the Bubble Tea test until
// the TUI exists: an event loop starts a save the way a tea.Cmd would (on
// another goroutine), keeps handling its own messages while the save is in
// flight, and receives progress as messages. The save cannot finish until
// the loop has handled 100 messages after the first progress report (the
// exporter waits on that gate), so a loop blocked by the save would hang.
// The real test, with tea.Program, comes with the TUI.
func TestContract_W1_SaveRunsOffTheLoop(t *testing.T) {
	dir := t.TempDir()
	g := newGatedExport(dir, 64<<20)
	type progressMsg struct{ p Progress }
	type doneMsg struct{ err error }
	type keyMsg struct{}
	msgs := make(chan any)
	stop := make(chan struct{})
	keysDone := make(chan struct{})
	go func() { // The terminal: keys keep coming.
		defer close(keysDone)
		for {
			select {
			case msgs <- keyMsg{}:
			case <-stop:
				return
			}
		}
	}()
	cmdDone := make(chan struct{})
	go func() { // The command.
		defer close(cmdDone)
		_, err := Save(context.Background(), TarSource(g.export), filepath.Join(dir, "big.tar.zst"), SaveOptions{
			OnProgress: func(p Progress) { msgs <- progressMsg{p} },
		})
		msgs <- doneMsg{err}
	}()
	keys, reports, keysAfterProgress := 0, 0, -1
	var last Progress
loop:
	for msg := range msgs { // The loop: every case returns at once.
		switch m := msg.(type) {
		case keyMsg:
			keys++
			if keysAfterProgress >= 0 {
				if keysAfterProgress++; keysAfterProgress == 100 {
					close(g.gate)
				}
			}
		case progressMsg:
			reports++
			last = m.p
			if keysAfterProgress < 0 {
				keysAfterProgress = 0
			}
		case doneMsg:
			if m.err != nil {
				t.Fatal(m.err)
			}
			break loop
		}
	}
	close(stop)
	<-keysDone
	<-cmdDone
	if reports < 2 || !last.Done || last.Bytes != 64<<20 || last.Files != 1 {
		t.Errorf("%d reports, last %+v; want at least a start and a final report with every byte", reports, last)
	}
	t.Logf("loop handled %d key messages and %d progress reports during the save", keys, reports)
}

// TestContract_W5_KilledRestoreLeftoverIsCleaned: the temp directory a
// killed restore left beside the workspace (unlocked) is removed by the
// next restore; one a live restore holds is not.
func TestContract_W5_KilledRestoreLeftoverIsCleaned(t *testing.T) {
	src := filepath.Join(t.TempDir(), "src")
	writeTree(t, src)
	archive := filepath.Join(t.TempDir(), "a.tar.zst")
	if _, err := Save(context.Background(), DirSource(src), archive, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	parent := t.TempDir()
	dead := filepath.Join(parent, ".ws"+restoreMarker+"dead")
	live := filepath.Join(parent, ".ws"+restoreMarker+"live")
	for _, d := range []string{dead, live} {
		if err := os.MkdirAll(filepath.Join(d, "half/done"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	held, err := newFSSink(live)
	if err != nil {
		t.Fatal(err)
	}
	defer held.close()
	if _, err := Restore(context.Background(), archive, filepath.Join(parent, "ws"), RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := names(t, parent); got != "."+"ws"+restoreMarker+"live\nws\n" {
		t.Errorf("beside the workspace: %q", got)
	}
}
