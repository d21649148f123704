package status

import (
	"fmt"
	"time"
)

// Config tunes a Tracker.
type Config struct {
	// ActivityWindow: output or CPU within it makes a session working.
	ActivityWindow time.Duration
	// IdleAfter: a session quiet this long after activity is idle.
	IdleAfter time.Duration
	// Debounce: a state from escapes, rules or activity is shown once it
	// has held this long, so a command that starts and ends at once, or
	// a screen redrawn through a matching line, does not flicker.
	// Reports and the process's life are shown at once. Negative: none.
	Debounce time.Duration
	// ResizeQuiet: output or CPU within it after a resize (Resized) is
	// the program redrawing for its new size, no activity, unless input
	// came in between or was waiting for its answer.
	ResizeQuiet time.Duration
}

// Defaults for Config's zero fields.
const (
	DefaultActivityWindow = 2 * time.Second
	DefaultIdleAfter      = 10 * time.Second
	DefaultDebounce       = 500 * time.Millisecond
	DefaultResizeQuiet    = 3 * time.Second
)

func (c Config) withDefaults() Config {
	if c.ActivityWindow <= 0 {
		c.ActivityWindow = DefaultActivityWindow
	}
	if c.IdleAfter <= 0 {
		c.IdleAfter = DefaultIdleAfter
	}
	if c.ResizeQuiet <= 0 {
		c.ResizeQuiet = DefaultResizeQuiet
	}
	switch {
	case c.Debounce == 0:
		c.Debounce = DefaultDebounce
	case c.Debounce < 0:
		c.Debounce = 0 // none
	}
	return c
}

// claim is one source's word on the state.
type claim struct {
	set    bool
	state  State
	reason string
	until  time.Time // zero: until replaced or cleared
	// progress: the claim is an OSC 9;4 progress report, which its
	// removal clears.
	progress bool
}

// Tracker holds one session's signals and the state they add up to. It is
// not safe for concurrent use: one owner (the UI's loop) feeds and reads it.
type Tracker struct {
	cfg    Config
	claims [numSources]claim
	// life is the process's word: set while it starts or closes, and for
	// good once it ended; empty while it runs.
	life       State
	lifeReason string
	// Activity: when output or CPU was last seen, and whether the session
	// counts as working on it (kept between the window and IdleAfter).
	lastActive time.Time
	activeWhy  string
	working    bool
	// idleWhy is idle's reason after activity, formatted once: every
	// pane's Update runs at each usage round and state sync.
	idleWhy string
	// resizedAt: the last resize, whose redraw is no activity until
	// ResizeQuiet after it; typed: input came that output has not
	// answered yet (its answer is activity, a resize or not).
	resizedAt time.Time
	typed     bool
	rules     ruleSet
	// cmdDone: OSC 133 D came since the last C, so a prompt keeps the
	// command's outcome.
	cmdDone bool
	// answered: input came while waiting (Input).
	answered bool

	shown     Status
	shownLife bool   // shown is the process's life (starting, closing, …)
	pending   Status // the state waiting out the debounce; zero when none
}

// NewTracker returns a tracker for a session that is starting at now.
func NewTracker(cfg Config, now time.Time) *Tracker {
	t := &Tracker{cfg: cfg.withDefaults(), life: Starting}
	t.idleWhy = fmt.Sprintf("quiet for %s", t.cfg.IdleAfter)
	t.shown, t.shownLife = Status{State: Starting, Since: now, Source: Life}, true
	return t
}

// Status is the state as shown now (as of the last Update).
func (t *Tracker) Status() Status { return t.shown }

// Life sets the process's word: Starting, Closing, Done, Failed or
// Disconnected, or "" once it runs. It wins over every other signal.
func (t *Tracker) Life(s State, reason string) { t.life, t.lifeReason = s, clip(reason) }

// Report sets an explicit report's claim (ctl status), for ttl (zero: until
// the next report). A report is shown at once.
func (t *Tracker) Report(s State, reason string, ttl time.Duration, now time.Time) {
	t.set(FromReport, s, reason, ttl, now)
}

// ClearReport drops the report's claim.
func (t *Tracker) ClearReport() { t.claims[FromReport] = claim{} }

// Escape sets the claim of an escape sequence the program sent.
func (t *Tracker) Escape(s State, reason string) { t.set(FromEscape, s, reason, 0, time.Time{}) }

// ClearEscape drops the escapes' claim (a progress report removed).
func (t *Tracker) ClearEscape() { t.claims[FromEscape] = claim{} }

func (t *Tracker) set(src Source, s State, reason string, ttl time.Duration, now time.Time) {
	c := claim{set: true, state: s, reason: clip(reason)}
	if ttl > 0 {
		c.until = now.Add(ttl)
	}
	t.claims[src] = c
}

// Active records output or CPU use at now; why names it ("output").
// Within ResizeQuiet after a resize it is the program's redraw and
// counts for nothing, unless it answers input.
func (t *Tracker) Active(now time.Time, why string) {
	typed := t.typed
	t.typed = false
	if !typed && !t.resizedAt.IsZero() && !now.Before(t.resizedAt) && now.Sub(t.resizedAt) < t.cfg.ResizeQuiet {
		return
	}
	if now.After(t.lastActive) {
		t.lastActive = now
	}
	t.activeWhy = why
}

// Resized records that the session's terminal changed size at now (the
// program gets SIGWINCH): its redraw is no activity (see Active).
func (t *Tracker) Resized(now time.Time) { t.resizedAt = now }

// Input records that the user typed into the session: whatever said it
// waits for the user has its answer, and the output that answers it is
// activity even right after a resize.
func (t *Tracker) Input() {
	t.typed = true
	for _, src := range []Source{FromReport, FromEscape} {
		if c := &t.claims[src]; c.set && c.state == Waiting {
			*c = claim{}
		}
	}
	t.rules.answer()
	// Leaving waiting on an answer is no flicker: the next Update shows
	// it at once, so a question asked again right after is a new entry.
	t.answered = t.shown.State == Waiting
}

// Update weighs the signals at now and returns the status shown, and
// whether it changed (state or reason).
func (t *Tracker) Update(now time.Time) (Status, bool) {
	st, reason, src := t.weigh(now)
	// An answer counts for this Update only: if the state stays (a rule
	// still matches), a later change is debounced as any other.
	answered := t.answered
	t.answered = false
	if st == t.shown.State {
		t.pending = Status{}
		if reason == t.shown.Reason && src == t.shown.Source {
			return t.shown, false
		}
		t.shown.Reason, t.shown.Source, t.shownLife = reason, src, src == Life
		return t.shown, true
	}
	// Reports, the process's life and the first state after a life state
	// (the start) are shown at once; the rest wait out the debounce.
	if src != FromReport && src != Life && !t.shownLife && !answered && t.cfg.Debounce > 0 {
		if t.pending.State != st {
			t.pending = Status{State: st, Since: now}
		}
		t.pending.Reason, t.pending.Source = reason, src
		if now.Sub(t.pending.Since) < t.cfg.Debounce {
			return t.shown, false
		}
		t.shown, t.pending, t.shownLife = t.pending, Status{}, false
		return t.shown, true
	}
	t.shown, t.pending, t.shownLife = Status{State: st, Reason: reason, Since: now, Source: src}, Status{}, src == Life
	return t.shown, true
}

// weigh is the state the signals give at now, with its reason and source
// (Life for the process's).
func (t *Tracker) weigh(now time.Time) (State, string, Source) {
	if t.life != "" {
		return t.life, t.lifeReason, Life
	}
	for src := FromReport; src > FromActivity; src-- {
		c := &t.claims[src]
		if c.set && !c.until.IsZero() && !now.Before(c.until) {
			*c = claim{}
		}
		if src == FromRule {
			if st, reason, ok := t.rules.claim(now); ok {
				return st, reason, src
			}
			continue
		}
		if c.set {
			return c.state, c.reason, src
		}
	}
	return t.activity(now)
}

// activity is the weakest word: working on recent output or CPU, idle
// once quiet for IdleAfter; in between it keeps what it said.
func (t *Tracker) activity(now time.Time) (State, string, Source) {
	switch {
	case t.lastActive.IsZero():
		t.working = false
	case now.Sub(t.lastActive) < t.cfg.ActivityWindow:
		t.working = true
	case now.Sub(t.lastActive) >= t.cfg.IdleAfter:
		t.working = false
	}
	if t.working {
		return Working, t.activeWhy, FromActivity
	}
	if t.lastActive.IsZero() {
		return Idle, "no output yet", FromActivity
	}
	return Idle, t.idleWhy, FromActivity
}

// Next is when Update must run again, at the latest, for the status to
// follow time alone (a report's ttl, a rule's hold, the debounce, going
// idle); zero when nothing is due.
func (t *Tracker) Next(now time.Time) time.Time {
	var next time.Time
	due := func(at time.Time) {
		if at.After(now) && (next.IsZero() || at.Before(next)) {
			next = at
		}
	}
	if t.pending.State != "" {
		due(t.pending.Since.Add(t.cfg.Debounce))
	}
	if t.life != "" {
		return next
	}
	for _, c := range t.claims {
		if c.set && !c.until.IsZero() {
			due(c.until)
		}
	}
	due(t.rules.nextHold(now))
	if t.working {
		// Idle needs both: out of the window and quiet for IdleAfter.
		due(t.lastActive.Add(max(t.cfg.IdleAfter, t.cfg.ActivityWindow)))
	}
	return next
}
