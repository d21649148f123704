package status

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// running is a tracker whose process runs, as of now.
func running(t *testing.T, now time.Time) *Tracker {
	t.Helper()
	tr := NewTracker(Config{}, now)
	tr.Life("", "")
	return tr
}

func want(t *testing.T, tr *Tracker, now time.Time, st State, reason string) {
	t.Helper()
	got, _ := tr.Update(now)
	if got.State != st || (reason != "" && !strings.Contains(got.Reason, reason)) {
		t.Fatalf("status = %s (%q), want %s (%q)", got.State, got.Reason, st, reason)
	}
}

// follow runs the tracker as the UI does: an Update at every Next, up to
// the given time, returning each status shown on the way.
func follow(tr *Tracker, until time.Time) []Status {
	var seen []Status
	for {
		if st, changed := tr.Update(time.Now()); changed {
			seen = append(seen, st)
		}
		next := tr.Next(time.Now())
		if next.IsZero() || next.After(until) {
			time.Sleep(time.Until(until))
			if st, changed := tr.Update(time.Now()); changed {
				seen = append(seen, st)
			}
			return seen
		}
		time.Sleep(time.Until(next))
	}
}

func TestContract_N1_StrongestSignalWins(t *testing.T) {
	now := time.Now()
	tr := NewTracker(Config{Debounce: -1}, now)
	want(t, tr, now, Starting, "")
	tr.Life("", "")
	want(t, tr, now, Idle, "no output yet")
	tr.Active(now, "output")
	tr.Update(now)
	want(t, tr, now.Add(time.Second), Working, "output")
	tr.SetRules([]*Rule{mustCompile(t, RuleSpec{Match: `\?$`, State: "waiting", Reason: "asks"})})
	tr.Screen([]string{"continue?"}, now)
	want(t, tr, now.Add(2*time.Second), Waiting, "asks")
	tr.CommandStart()
	tr.Update(now.Add(2 * time.Second))
	want(t, tr, now.Add(3*time.Second), Working, "running a command")
	tr.Report(Done, "finished the task", 0, now)
	want(t, tr, now.Add(3*time.Second), Done, "finished the task") // at once: no debounce
	tr.Life(Failed, "exited 3")
	want(t, tr, now.Add(3*time.Second), Failed, "exited 3")
}

func TestDebounceHidesAFlicker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := running(t, time.Now())
		tr.Prompt()
		seen := follow(tr, time.Now().Add(time.Second))
		if len(seen) != 1 || seen[0].State != Idle || seen[0].Reason != "at the prompt" {
			t.Fatalf("seen %v, want idle at the prompt at once after the start", seen)
		}
		// A command that starts and ends within the debounce shows only
		// its outcome, and since when the outcome held.
		start := time.Now()
		tr.CommandStart()
		tr.Update(time.Now())
		time.Sleep(100 * time.Millisecond)
		tr.CommandDone(0, true)
		tr.Prompt()
		seen = follow(tr, time.Now().Add(2*time.Second))
		if len(seen) != 1 || seen[0].State != Done || !seen[0].Since.Equal(start.Add(100*time.Millisecond)) {
			t.Fatalf("seen %v, want one done since the command ended", seen)
		}
	})
}

func TestReportTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := running(t, time.Now())
		tr.Update(time.Now())
		start := time.Now()
		tr.Report(Waiting, "needs approval", 5*time.Second, start)
		if st, _ := tr.Update(time.Now()); st.State != Waiting {
			t.Fatalf("report not shown at once: %v", st)
		}
		seen := follow(tr, start.Add(10*time.Second))
		if len(seen) != 1 || seen[0].State != Idle || seen[0].Since.Before(start.Add(5*time.Second)) {
			t.Fatalf("seen %v, want idle once the ttl ran out", seen)
		}
	})
}

func TestRuleHold(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := running(t, time.Now())
		tr.SetRules([]*Rule{mustCompile(t, RuleSpec{Match: `Do you want to (\w+)`, State: "waiting", Reason: "asks to $1", Hold: 2 * time.Second})})
		tr.Update(time.Now())
		// A match shorter than the hold does not count.
		tr.Screen([]string{"Do you want to proceed"}, time.Now())
		time.Sleep(time.Second)
		tr.Screen([]string{"thinking"}, time.Now())
		if seen := follow(tr, time.Now().Add(5*time.Second)); len(seen) != 0 {
			t.Fatalf("a match shorter than its hold changed the state: %v", seen)
		}
		start := time.Now()
		tr.Screen([]string{"x", "Do you want to proceed"}, start)
		seen := follow(tr, start.Add(5*time.Second))
		want := start.Add(2 * time.Second) // the hold, then no debounce wait
		if len(seen) != 1 || seen[0].State != Waiting || seen[0].Reason != "asks to proceed" || seen[0].Since.Before(want) {
			t.Fatalf("seen %v, want waiting (asks to proceed) from %v", seen, want)
		}
	})
}

func TestActivityAndIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := running(t, time.Now())
		tr.Update(time.Now())
		tr.Active(time.Now(), "output")
		seen := follow(tr, time.Now().Add(30*time.Second))
		if len(seen) != 2 || seen[0].State != Working || seen[1].State != Idle {
			t.Fatalf("seen %v, want working then idle", seen)
		}
		if d := seen[1].Since.Sub(seen[0].Since); d < DefaultIdleAfter {
			t.Fatalf("idle %v after working, want at least %v", d, DefaultIdleAfter)
		}
	})
}

// An answer leaves waiting at once, debounce or not, so that a question
// asked right after it is a new entry into waiting.
func TestContract_N3_AnswerEndsTheWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := running(t, time.Now())
		tr.Update(time.Now())
		tr.Notify("first")
		seen := follow(tr, time.Now().Add(time.Second))
		if len(seen) != 1 || seen[0].State != Waiting {
			t.Fatalf("seen %v, want waiting", seen)
		}
		tr.Input()
		if st, changed := tr.Update(time.Now()); !changed || st.State != Idle {
			t.Fatalf("after the answer: %v (changed %v), want idle at once", st, changed)
		}
		tr.Notify("second")
		seen = follow(tr, time.Now().Add(time.Second))
		if len(seen) != 1 || seen[0].State != Waiting || seen[0].Reason != "second" {
			t.Fatalf("seen %v, want waiting again", seen)
		}
	})
}

func TestInputAnswersWaiting(t *testing.T) {
	now := time.Now()
	tr := running(t, now)
	tr.cfg.Debounce = 0
	tr.Notify("Claude needs your permission")
	want(t, tr, now, Waiting, "permission")
	tr.Input()
	want(t, tr, now, Idle, "")
	tr.Report(Waiting, "hook", 0, now)
	tr.Input()
	want(t, tr, now, Idle, "")
	tr.Report(Working, "hook", 0, now)
	tr.Input()
	want(t, tr, now, Working, "hook") // only a wait is answered
}

func TestShellMarksAndProgress(t *testing.T) {
	now := time.Now()
	tr := running(t, now)
	tr.cfg.Debounce = 0
	for _, c := range []struct {
		do     func()
		st     State
		reason string
	}{
		{tr.Prompt, Idle, "at the prompt"},
		{tr.CommandStart, Working, "running a command"},
		{func() { tr.CommandDone(2, true) }, Failed, "exited 2"},
		{tr.Prompt, Failed, "exited 2"},
		{tr.CommandStart, Working, ""},
		{func() { tr.CommandDone(0, true) }, Done, "exited 0"},
		{func() { tr.Progress(1, 45) }, Working, "45%"},
		{func() { tr.Progress(0, 0) }, Idle, ""},
		{func() { tr.Progress(2, 10) }, Failed, "error at 10%"},
		{tr.Bell, Waiting, "bell"},
		{func() { tr.Progress(0, 0) }, Waiting, "bell"}, // not a progress claim
	} {
		c.do()
		want(t, tr, now, c.st, c.reason)
	}
}

func TestReasonsAreBounded(t *testing.T) {
	tr := running(t, time.Now())
	tr.Notify(strings.Repeat("é", MaxReason))
	st, _ := tr.Update(time.Now())
	if len(st.Reason) > MaxReason+len("…") || !strings.HasSuffix(st.Reason, "…") {
		t.Fatalf("reason of %d bytes", len(st.Reason))
	}
}

// A window longer than IdleAfter still ends in idle, on the timer alone.
func TestIdleAfterALongWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := NewTracker(Config{ActivityWindow: 30 * time.Second, IdleAfter: 5 * time.Second}, time.Now())
		tr.Life("", "")
		tr.Update(time.Now())
		start := time.Now()
		tr.Active(start, "output")
		seen := follow(tr, start.Add(time.Minute))
		if len(seen) != 2 || seen[1].State != Idle || seen[1].Since.Sub(start) > 31*time.Second {
			t.Fatalf("seen %v, want working then idle once the window passed (%v)", seen, start.Add(30*time.Second))
		}
	})
}

// An answer that leaves the state as it was (a new question came before
// the state was looked at) does not spare a later change its debounce.
func TestStaleAnswerIsForgotten(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := running(t, time.Now())
		tr.SetRules([]*Rule{mustCompile(t, RuleSpec{Match: `(?m)\?$`, State: "waiting"})})
		tr.Update(time.Now())
		tr.Screen([]string{"continue?"}, time.Now())
		follow(tr, time.Now().Add(time.Second))
		tr.Input()
		tr.Screen([]string{"continue?", "sure?"}, time.Now()) // still waiting
		if st, _ := tr.Update(time.Now()); st.State != Waiting {
			t.Fatalf("state %v, want still waiting", st)
		}
		tr.Screen([]string{"thinking"}, time.Now())
		if st, changed := tr.Update(time.Now()); changed {
			t.Fatalf("a later change skipped the debounce: %v", st)
		}
	})
}

// quietAfterOutput is a running session's tracker, with no debounce, that
// saw output and then nothing, and a moment after it went quiet enough
// to be idle.
func quietAfterOutput() (*Tracker, time.Time) {
	now := time.Now()
	tr := NewTracker(Config{Debounce: -1}, now)
	tr.Life("", "")
	tr.Active(now, "output")
	return tr, now.Add(DefaultIdleAfter + time.Second)
}

// A program's redraw after a resize is no activity: an idle shell stays
// idle. Input before the output makes it its answer, which is activity,
// and output after the quiet window is activity again.
func TestResizeRedrawIsNoActivity(t *testing.T) {
	tr, idle := quietAfterOutput()
	want(t, tr, idle, Idle, "quiet")

	tr.Resized(idle)
	tr.Active(idle.Add(100*time.Millisecond), "output") // the redraw
	want(t, tr, idle.Add(200*time.Millisecond), Idle, "quiet")

	tr.Input() // a command typed: what answers it is activity
	tr.Active(idle.Add(300*time.Millisecond), "output")
	want(t, tr, idle.Add(400*time.Millisecond), Working, "output")

	later := idle.Add(2 * DefaultIdleAfter)
	want(t, tr, later, Idle, "quiet")
	tr.Resized(later)
	tr.Active(later.Add(DefaultResizeQuiet), "output") // after the window
	want(t, tr, later.Add(DefaultResizeQuiet+time.Millisecond), Working, "output")
}

// Every pane's tracker is updated at every usage round and state sync: a
// settled idle one allocates nothing for it (its reason was formatted
// anew each time, for 32 idle shells a string each per round).
func TestSettledIdleUpdateAllocatesNothing(t *testing.T) {
	tr, idle := quietAfterOutput()
	want(t, tr, idle, Idle, "quiet for 10s")
	if n := testing.AllocsPerRun(100, func() { tr.Update(idle) }); n != 0 {
		t.Fatalf("a settled idle Update allocated %v times, want 0", n)
	}
}
