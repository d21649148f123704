package mux

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/providers"
)

// Usage sampling: every usageEvery, while some pane runs, one command
// reads every running pane's CPU time and memory (files under /proc or a
// cgroup: never in Update) and returns them in one usageMsg; Update turns
// the CPU time into a share of one core over the interval. One timer
// serves every pane, and none runs while no pane does. Idle is idle: each
// round in which no pane was busy and none wrote doubles the interval, up
// to usageIdleMax, and output or a busy pane brings it back to
// usageEvery; opening the session list samples at once, as the list
// shows the figures.
//
//	armUsage ─► a timer (usageEvery << idle rounds) ─► usageTickMsg ─► sampleUsage (a command)
//	  ─► usageMsg ─► handleUsage: per pane CPU %, RSS, cpuBusy ─► armUsage

// usageEvery is how often the panes' usage is sampled while any is busy
// or writes; usageIdleMax is how seldom while none is.
const (
	usageEvery   = 2 * time.Second
	usageIdleMax = 16 * time.Second
)

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
	gen     int // the generation sampled: a restart starts over
	at      time.Time
	cpu     time.Duration // cumulative, as the provider reported it
	percent float64       // of one core, since the sample before
	rss     int64
	ok      bool
}

// ArmUsage sets the sampling timer, unless one is set or no pane runs.
// It runs after every Update: a loop over the panes, and no more, until
// one runs.
func (s *Shared) ArmUsage() tea.Cmd {
	if s.usageArmed || s.done || !s.anyRunning() {
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
	return s.sampleUsage()
}

// SampleUsageNow samples at once, for a reader of the figures (the
// session list), and starts the intervals again from usageEvery; the
// timer waiting is dropped.
func (s *Shared) SampleUsageNow() tea.Cmd {
	s.usageIdle = 0
	s.usageGen++
	cmd := s.sampleUsage()
	s.usageArmed = cmd != nil
	return cmd
}

func (s *Shared) anyRunning() bool {
	for _, p := range s.panes {
		if p.phase == PhaseRunning && p.sess != nil {
			return true
		}
	}
	return false
}

// sampleUsage returns the command that reads every running pane's usage.
func (s *Shared) sampleUsage() tea.Cmd {
	type target struct {
		key, gen int
		sess     Session
	}
	var targets []target
	for _, p := range s.panes {
		if p.phase == PhaseRunning && p.sess != nil {
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
		p.cpuBusy = p.usage.ok && p.usage.percent > busyCPU
		if p.cpuBusy && p.st.track != nil {
			p.st.track.Active(s.now(), "CPU") // busy without output: still working
		}
		active = active || p.cpuBusy
	}
	if active {
		s.usageIdle = 0
	} else {
		s.usageIdle++
	}
	return s.ArmUsage()
}

// take records sample s. The CPU share is over the time since the last
// sample of the same generation, or since the session started for the
// first one.
func (u *paneUsage) take(s usageSample, started time.Time) {
	if !s.ok {
		*u = paneUsage{gen: s.gen}
		return
	}
	prevAt, prevCPU := u.at, u.cpu
	if u.gen != s.gen || !u.ok {
		prevAt, prevCPU = started, 0
	}
	var percent float64
	if wall := s.at.Sub(prevAt); !prevAt.IsZero() && wall > 0 {
		// A tree's CPU can drop when a child exits unwaited for: no
		// negative share.
		percent = 100 * float64(max(0, s.usage.CPU-prevCPU)) / float64(wall)
	}
	*u = paneUsage{gen: s.gen, at: s.at, cpu: s.usage.CPU, percent: percent, rss: s.usage.RSS, ok: true}
}

// usageNow is the pane's usage as PaneInfo carries it: only while it runs
// and only from a sample of its current generation.
func (p *Pane) usageNow() (percent float64, rss int64, ok bool) {
	if p.phase != PhaseRunning || !p.usage.ok || p.usage.gen != p.gen {
		return 0, 0, false
	}
	return p.usage.percent, p.usage.rss, true
}
