package mux

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/providers"
)

// Usage sampling: every usageEvery, while some pane runs, one command
// reads every awake pane's CPU time and memory (files under /proc or a
// cgroup: never in Update) and returns them in one usageMsg; Update turns
// the CPU time into a share of one core over the interval. One timer
// serves every pane. Idle is idle: each round in which no pane was busy
// and none wrote doubles the interval, up to usageIdleMax, and output or
// a busy pane brings it back to usageEvery. A pane quiet for
// usageDormant of its rounds in a row (no output, no input, not busy) is
// dormant: the timer samples it no more, and sets none while every pane
// is, so a server of idle panes wakes for nothing. Its output or input
// wakes it. A reader of the figures asks for them: opening the session
// list and ctl ls sample every running pane at once, dormant or not.
//
//	armUsage ─► a timer (usageEvery << idle rounds) ─► usageTickMsg ─► sampleUsage (a command)
//	  ─► usageMsg ─► handleUsage: per pane CPU %, RSS, cpuBusy, quiet rounds ─► armUsage

// usageEvery is how often the panes' usage is sampled while any is busy
// or writes; usageIdleMax is how seldom while none is.
const (
	usageEvery   = 2 * time.Second
	usageIdleMax = 16 * time.Second
)

// usageDormant is how many of its rounds in a row a pane must be quiet
// (no output, no input, under busyCPU) before the timer stops sampling
// it: 3 rounds of a quiet server are 2+4+8 s after the round that saw
// its last output, so a server of shells started together samples for
// the last time 16 s after their start, and then wakes for nothing. (At
// 4 rounds the last came 32 s after: 32 idle shells' server spent most
// of its CPU between 20 and 50 s after its start on that one round,
// some 2 ms, as much as tmux spent on everything.) A process that
// starts working without a word or a key (a job sleeping in the
// background) counts as busy once something wakes its pane or asks
// for the figures.
const usageDormant = 3

// busyCPU is the share of one core (in percent) above which a pane counts
// as busy in its last sample.
const busyCPU = 5.0

type (
	usageTickMsg struct{ gen int } // gen: the timer is current only while it is m.usageGen
	usageMsg     struct{ samples []usageSample }
	usageSample  struct {
		key, gen int
		at       time.Time
		usage    providers.Usage
		ok       bool // the provider could tell
	}
)

// paneUsage is a pane's last usage sample.
type paneUsage struct {
	gen int // the generation sampled: a restart starts over
	// at and cpu are the base of the next share once it is
	// minShareWindow old (the first sample since the base before it);
	// fromAt and fromCPU, the base before, for a sample sooner (take).
	at, fromAt   time.Time
	cpu, fromCPU time.Duration // cumulative, as the provider reported it
	percent      float64       // of one core, over the newest share's window
	window       time.Duration // the newest share's
	rss          int64
	ok           bool
}

// busy reports whether the newest share says the pane is busy: over
// busyCPU, and over a window of minShareWindow at least. A pane's first
// shares after its start are over less, and count its own exec and
// loading: shown, but not taken for work.
func (u *paneUsage) busy() bool {
	return u.ok && u.window >= minShareWindow && u.percent > busyCPU
}

// minShareWindow is the least time a CPU share is taken over, once a
// pane has one: the counters a pane's CPU is read from move in steps (a
// process's in clock ticks of 10 ms), and readers of the figures sample
// on demand (every ctl ls, every opening of the session list), so two
// samples may be milliseconds apart. Over such a window one step read
// as a tenth of a core or more, and made an idle pane busy ("working",
// for CPU) for as long as the tracker holds activity.
const minShareWindow = time.Second

// ArmUsage sets the sampling timer, unless one is set or no pane runs
// that is awake. It runs after every Update: a loop over the panes, and
// no more, until one runs awake.
func (s *Shared) ArmUsage() tea.Cmd {
	if s.usageArmed || s.done {
		return nil
	}
	if !s.anyAwake() {
		// The next round follows a pane's waking: it starts over from
		// usageEvery.
		s.usageIdle = 0
		return nil
	}
	s.usageArmed = true
	s.usageGen++
	return s.After(s.usageInterval(), usageTickMsg{gen: s.usageGen})
}

// usageInterval is the wait before the next round: usageEvery, doubled
// for each idle round in a row, at most usageIdleMax.
func (s *Shared) usageInterval() time.Duration {
	d := usageEvery
	for range s.usageIdle {
		if d *= 2; d >= usageIdleMax {
			return usageIdleMax
		}
	}
	return d
}

// usageTick samples when its timer is still the current one.
func (s *Shared) usageTick(msg usageTickMsg) tea.Cmd {
	if msg.gen != s.usageGen {
		return nil // a sample on demand took its place
	}
	return s.sampleUsage(false)
}

// SampleUsageNow samples at once, for a reader of the figures (the
// session list), and starts the intervals again from usageEvery; the
// timer waiting is dropped.
func (s *Shared) SampleUsageNow() tea.Cmd {
	s.usageIdle = 0
	s.usageGen++
	cmd := s.sampleUsage(true)
	s.usageArmed = cmd != nil
	return cmd
}

func (s *Shared) anyAwake() bool {
	for _, p := range s.panes {
		if p.running() && p.usageAwake() {
			return true
		}
	}
	return false
}

func (p *Pane) running() bool { return p.phase == PhaseRunning && p.sess != nil }

// usageAwake: the timer samples the pane. A generation not sampled yet
// (just started or restarted) is awake whatever its count says.
func (p *Pane) usageAwake() bool { return p.usageQuiet < usageDormant || p.usage.gen != p.gen }

// wakeUsage has the timer sample p again: it wrote or was typed into,
// which its next round counts as not quiet.
func (p *Pane) wakeUsage() { p.usageQuiet, p.usageWrote = 0, true }

// sampleUsage returns the command that reads the usage of every running
// pane that is awake, or of every running one when all is set (a reader
// of the figures asked).
func (s *Shared) sampleUsage(all bool) tea.Cmd {
	type target struct {
		key, gen int
		sess     Session
	}
	var targets []target
	for _, p := range s.panes {
		if p.running() && (all || p.usageAwake()) {
			targets = append(targets, target{p.key, p.gen, p.sess})
		}
	}
	if len(targets) == 0 {
		s.usageArmed = false
		return nil
	}
	return func() tea.Msg {
		samples := make([]usageSample, 0, len(targets))
		for _, t := range targets {
			u, ok := t.sess.Usage()
			samples = append(samples, usageSample{key: t.key, gen: t.gen, at: time.Now(), usage: u, ok: ok})
		}
		return usageMsg{samples: samples}
	}
}

// handleUsage takes a round of samples and sets the next timer. Nothing
// is redrawn for it unless some client shows the session list.
func (s *Shared) handleUsage(msg usageMsg) tea.Cmd {
	s.usageArmed = false
	for _, p := range s.panes {
		if p.phase != PhaseRunning {
			p.cpuBusy = false // its last sample says nothing of it now
		}
	}
	active := s.usageOutput
	s.usageOutput = false
	for _, sample := range msg.samples {
		_, p := s.paneByKey(sample.key, sample.gen)
		if p == nil {
			continue // closed or restarted since
		}
		p.usage.take(sample, p.info.Started)
		p.cpuBusy = p.usage.busy()
		if p.cpuBusy && p.st.track != nil {
			p.st.track.Active(s.now(), "CPU") // busy without output: still working
		}
		p.countQuiet()
		active = active || p.cpuBusy
	}
	if active {
		s.usageIdle = 0
	} else {
		s.usageIdle++
	}
	return s.ArmUsage()
}

// countQuiet counts a round in which p was sampled: a quiet one adds to
// its quiet rounds, one in which it was busy or wrote (the output of the
// round before, cleared here) starts them over.
func (p *Pane) countQuiet() {
	if p.cpuBusy || p.usageWrote {
		p.usageQuiet = 0
	} else if p.usageQuiet < usageDormant {
		p.usageQuiet++
	}
	p.usageWrote = false
}

// take records sample s. Its CPU share is over the time since the base
// (the session's start for a first share), which is the sample after the
// base before it once that is minShareWindow old: every share but a
// first is over one to two seconds, however often samples come.
func (u *paneUsage) take(s usageSample, started time.Time) {
	if !s.ok {
		*u = paneUsage{gen: s.gen}
		return
	}
	switch {
	case u.gen != s.gen || !u.ok:
		*u = paneUsage{gen: s.gen, fromAt: started, at: s.at, cpu: s.usage.CPU, ok: true}
	case s.at.Sub(u.at) >= minShareWindow || u.fromAt.IsZero():
		// (A session whose start is not known has its first sample as
		// the base before.)
		u.fromAt, u.fromCPU = u.at, u.cpu
		u.at, u.cpu = s.at, s.usage.CPU
	}
	u.percent, u.window, u.rss = share(u.fromAt, u.fromCPU, s), s.at.Sub(u.fromAt), s.usage.RSS
}

// share is the CPU share of one core, in percent, from a base at
// baseAt with baseCPU to sample s.
func share(baseAt time.Time, baseCPU time.Duration, s usageSample) float64 {
	wall := s.at.Sub(baseAt)
	if baseAt.IsZero() || wall <= 0 {
		return 0
	}
	// A tree's CPU can drop when a child exits unwaited for: no negative
	// share.
	return 100 * float64(max(0, s.usage.CPU-baseCPU)) / float64(wall)
}

// usageNow is the pane's usage as PaneInfo carries it: only while it runs
// and only from a sample of its current generation.
func (p *Pane) usageNow() (percent float64, rss int64, ok bool) {
	if p.phase != PhaseRunning || !p.usage.ok || p.usage.gen != p.gen {
		return 0, 0, false
	}
	return p.usage.percent, p.usage.rss, true
}
