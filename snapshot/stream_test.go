package snapshot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
)

// untarInto is an importer the way a provider builds one: GNU tar
// extracting the stream into dir.
func untarInto(dir string, called *bool) func(ctx context.Context, r io.Reader) error {
	return func(ctx context.Context, r io.Reader) error {
		*called = true
		cmd := exec.CommandContext(ctx, "tar", "-x", "-C", dir)
		cmd.Stdin = r
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("tar -x: %w: %s", err, out)
		}
		return nil
	}
}

func TestRestoreStreamRoundTrip(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "ws")
	writeTree(t, ws)
	archive := filepath.Join(t.TempDir(), "a.tar.zst")
	if _, err := Save(context.Background(), DirSource(ws), archive, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	var called bool
	if _, err := RestoreStream(context.Background(), archive, untarInto(dst, &called), RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	if treeHash(t, dst) != treeHash(t, ws) {
		t.Errorf("imported tree differs\nwant:\n%s\ngot:\n%s", treeListing(t, ws), treeListing(t, dst))
	}
}

// TestContract_W5_RestoreStreamRefusesBeforeImporting: a hostile archive
// never reaches the provider.
func TestContract_W5_RestoreStreamRefusesBeforeImporting(t *testing.T) {
	for _, tc := range hostileArchives() {
		archive := filepath.Join(t.TempDir(), "h.tar.zst")
		if err := os.WriteFile(archive, tc.data(t), 0o600); err != nil {
			t.Fatal(err)
		}
		var called bool
		_, err := RestoreStream(context.Background(), archive, untarInto(t.TempDir(), &called), RestoreOptions{Limits: tc.limits})
		checkRefusal(t, tc.name, err, tc)
		if called {
			t.Errorf("%s: the importer was called", tc.name)
		}
	}
}

func TestRestoreStreamImporterFailureSurfaces(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "ws")
	writeTree(t, ws)
	archive := filepath.Join(t.TempDir(), "a.tar.zst")
	if _, err := Save(context.Background(), DirSource(ws), archive, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err := RestoreStream(context.Background(), archive, func(ctx context.Context, r io.Reader) error {
		return exportError{} // Fails at once, reading nothing.
	}, RestoreOptions{})
	if !errors.As(err, new(exportError)) || !strings.Contains(err.Error(), "import workspace") {
		t.Fatalf("got %v", err)
	}
}

// TestContract_W2_CancelledRestoreStreamWaitsForTheImporter: cancelled
// while the importer is stuck, RestoreStream returns only after it
// returned, with the cause first and the importer's failure joined (W3).
func TestContract_W2_CancelledRestoreStreamWaitsForTheImporter(t *testing.T) {
	archive := filepath.Join(t.TempDir(), "a.tar.zst")
	data := zstdBytes(t, tarBytes(t, file("a", words(1<<20)), file("b", words(1<<20))))
	if err := os.WriteFile(archive, data, 0o600); err != nil {
		t.Fatal(err)
	}
	synctest.Test(t, func(t *testing.T) {
		started, gate, exited := make(chan struct{}), make(chan struct{}), make(chan struct{})
		importer := func(ctx context.Context, r io.Reader) error {
			defer close(exited)
			_, _ = io.ReadFull(r, make([]byte, 4096)) // Some of the stream, then stuck.
			close(started)
			<-gate
			_, err := io.Copy(io.Discard, r)
			return errors.Join(exportError{}, err)
		}
		ctx, cancel := context.WithCancelCause(context.Background())
		result := make(chan error, 1)
		go func() {
			_, err := RestoreStream(ctx, archive, importer, RestoreOptions{})
			result <- err
		}()
		<-started
		cause := errors.New("quit")
		cancel(cause)
		synctest.Wait()
		select {
		case err := <-result:
			t.Fatalf("returned (%v) while the importer was still running", err)
		default:
		}
		close(gate)
		err := <-result
		<-exited
		if !errors.Is(err, cause) || !strings.HasPrefix(err.Error(), cause.Error()) || !errors.As(err, new(exportError)) {
			t.Errorf("got %q, want the cause first and the importer's failure joined", err)
		}
	})
}
