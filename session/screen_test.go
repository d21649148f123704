package session

import (
	"context"
	"strings"
	"testing"

	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/session/vt"
)

// countTurns counts the turns a session takes at parsing.
type countTurns struct{ taken, given int }

func (c *countTurns) Take() { c.taken++ }
func (c *countTurns) Give() { c.given++ }

// screenSession is a local Manager and the options of a session whose
// output parses into an 80x24 screen, a counted turn per slice; the
// test's end closes the screen, then waits for the Manager.
func screenSession(t *testing.T) (*Manager, *vt.Screen, *countTurns, Options) {
	m := localManager()
	t.Cleanup(m.Wait)
	screen := vt.New(80, 24)
	t.Cleanup(screen.Close)
	turns := &countTurns{}
	opts := realOpts
	opts.Screen, opts.Turns = screen, turns
	return m, screen, turns, opts
}

// A session with a screen parses its output into it, a turn per slice,
// and the screen's answers to the child's queries go straight back to
// the session: the child asks for a status report (DSR 5) and reads the
// answer from its input.
func TestSessionOwnsItsScreen(t *testing.T) {
	m, screen, turns, opts := screenSession(t)
	w := newWatchSink()
	opts.Sinks = []Sink{w}
	script := `stty raw -echo; printf '\033[5n'; x=$(dd bs=4 count=1 2>/dev/null); printf 'answer:%s:end\r\n' "$x" | od -An -c | tr -s ' '; printf 'DONE\r\n'`
	s, err := m.Start(t.Context(), "local", providers.Spec{Name: t.Name(), Command: []string{"sh", "-c", script}, Size: providers.Size{Cols: 80, Rows: 24}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	w.waitFor(t, "DONE")
	<-s.Exited()
	if s.Screen() != screen {
		t.Error("Screen does not return the session's screen")
	}
	text := string(screen.Dump(nil, false, false))
	if !strings.Contains(text, `033 [ 0 n`) || !strings.Contains(text, "DONE") {
		t.Errorf("the child did not read the screen's answer, or the screen missed output:\n%s", text)
	}
	if turns.taken == 0 || turns.taken != turns.given {
		t.Errorf("turns taken %d, given %d: want some, all given back", turns.taken, turns.given)
	}
	if err := m.Close(context.Background(), s.ID()); err != nil {
		t.Fatal(err)
	}
}

// Parsed is called after each parse, by the goroutine that parsed, with
// the text in the screen and neither the screen's lock nor a turn held:
// it writes to the screen itself, which would wait for ever on a lock
// held, and counts the turns out.
func TestParsedAfterTheScreenHasTheText(t *testing.T) {
	m, screen, turns, opts := screenSession(t)
	saw := make(chan bool, 64)
	opts.Parsed = func() {
		inTurn := turns.taken != turns.given
		screen.Write("") // the lock is free, or this waits for ever
		saw <- !inTurn && strings.Contains(string(screen.Dump(nil, false, false)), "PARSED")
	}
	s, err := m.Start(t.Context(), "local", providers.Spec{Name: t.Name(), Command: []string{"sh", "-c", "printf 'PARSED\\r\\n'; sleep 30"}, Size: providers.Size{Cols: 80, Rows: 24}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !<-saw {
		t.Error("Parsed ran inside a turn or before the screen had the text")
	}
	if err := m.Close(context.Background(), s.ID()); err != nil {
		t.Fatal(err)
	}
}
