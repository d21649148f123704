package session

import (
	"context"
	"fmt"
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

// runTurns is countTurns that runs a turn's parse itself (a TurnRunner),
// counting those runs apart.
type runTurns struct {
	countTurns
	runs int
}

func (r *runTurns) RunTurn(parse func()) {
	r.runs++
	r.Take()
	parse()
	r.Give()
}

// A session whose Turns is a TurnRunner parses a real flood into its
// screen to the end, every turn given back. How the flood comes in slices
// is the machine's: a loaded one reads it a few KiB at a time, as fast as
// it comes, so which slices went to RunTurn is TestParseRoutesSlices's.
func TestLargeSlicesRunThroughTheRunner(t *testing.T) {
	m, screen, _, opts := screenSession(t)
	turns := &runTurns{}
	opts.Turns = turns
	w := newWatchSink()
	opts.Sinks = []Sink{w}
	script := `seq 1 40000; sleep 0.2; printf 'DONE\r\n'`
	s, err := m.Start(t.Context(), "local", providers.Spec{Name: t.Name(), Command: []string{"sh", "-c", script}, Size: providers.Size{Cols: 80, Rows: 24}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	w.waitFor(t, "DONE")
	<-s.Exited()
	if err := m.Close(context.Background(), s.ID()); err != nil {
		t.Fatal(err)
	}
	text := string(screen.Dump(nil, false, false))
	if !strings.Contains(text, "40000") || !strings.Contains(text, "DONE") {
		t.Errorf("the screen misses the flood's end or what came after:\n%s", text)
	}
	if turns.taken == 0 || turns.taken != turns.given {
		t.Errorf("turns taken %d (%d of them run), given %d: want all given back", turns.taken, turns.runs, turns.given)
	}
}

// A flood's slices of runSlice bytes or more go to a TurnRunner's
// RunTurn (parsegate parses them on a thread of lower priority); a few
// bytes (a prompt, an echo) take their turns where they are parsed, for
// which the hand-off would cost more than the parse.
func TestParseRoutesSlices(t *testing.T) {
	screen := vt.New(80, 24)
	defer screen.Close()
	turns := &runTurns{}
	s := &Session{opts: Options{Screen: screen, Turns: turns}, runner: turns}
	var flood strings.Builder
	for i := 1; i <= 40000; i++ {
		fmt.Fprintf(&flood, "%d\r\n", i)
	}
	s.parse(flood.String())
	if want := flood.Len() / vt.SliceFor(24); turns.runs < want || turns.runs < 1 {
		t.Errorf("a %d KB flood went to RunTurn in %d slices, want %d or more", flood.Len()>>10, turns.runs, max(want, 1))
	}
	runs, taken := turns.runs, turns.taken
	s.parse("$ ")
	if turns.runs != runs || turns.taken != taken+1 {
		t.Errorf("a prompt's two bytes: RunTurn %d times, taken %d times; want no run, one turn taken in place", turns.runs-runs, turns.taken-taken)
	}
	if turns.taken != turns.given {
		t.Errorf("turns taken %d, given %d", turns.taken, turns.given)
	}
	if text := string(screen.Dump(nil, false, false)); !strings.Contains(text, "40000") || !strings.Contains(text, "$") {
		t.Errorf("the screen misses the flood's end or the prompt:\n%s", text)
	}
}
