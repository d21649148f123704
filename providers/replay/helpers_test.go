package replay

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/sandmux/sandmux/asciicast"
)

// TestMain fails the package if a test leaves a goroutine behind: a
// replay starts none, and a session on one joins its own.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// event is one output event of a generated recording.
type event struct {
	at   time.Duration
	kind string
	data string
}

// writeCast writes a recording of the given size and events, as sandmux
// record writes one, and returns its path.
func writeCast(t *testing.T, cols, rows int, idle float64, events ...event) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run.cast")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := asciicast.NewWriter(f, asciicast.Header{Width: cols, Height: rows, IdleTimeLimit: idle}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		kind := e.kind
		if kind == "" {
			kind = asciicast.KindOutput
		}
		w.WriteEvent(e.at, kind, e.data)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return path
}

func options(file string, speed float64, loop bool) map[string]any {
	return map[string]any{"file": file, "speed": speed, "loop": loop}
}
