package mux

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/sandmux/sandmux/mux/muxtest"
	"github.com/sandmux/sandmux/providers"
)

// TestUsageSampledOffTheLoop: the timer set while panes run asks for one
// command that samples every running pane; Update itself reads nothing.
func TestUsageSampledOffTheLoop(t *testing.T) {
	b := newFakeBackend()
	b.StartErr["cpane"] = muxtest.ErrFailedStart
	s, _ := newTestShared(t, b, 3, Config{})
	if !s.usageArmed {
		t.Fatal("no usage timer while panes run")
	}
	b.Sessions[0].Use = &providers.Usage{CPU: time.Second, RSS: 4 << 20}
	before := b.Total()
	cmd := update(s, usageTickMsg{gen: s.usageGen})
	if b.Total() != before || cmd == nil {
		t.Fatalf("the tick: %d blocking calls in Update, command %v; want none and a command", b.Total()-before, cmd != nil)
	}
	msg, ok := cmd().(usageMsg)
	if !ok || len(msg.samples) != 2 || b.Calls["Usage"] != 2 {
		t.Fatalf("the sample: %+v after %d Usage calls; want 2 samples, one per running pane", msg, b.Calls["Usage"])
	}
	if cmd := update(s, msg); cmd == nil || !s.usageArmed {
		t.Error("no new timer after a sample while panes run")
	}
	if info := s.InfoAt(0); !info.HasUsage || info.RSSBytes != 4<<20 {
		t.Errorf("apane: %+v; want its memory", info)
	}
	if info := s.InfoAt(1); info.HasUsage {
		t.Errorf("bpane's provider cannot tell, yet %+v", info)
	}
}

// TestUsagePercentOverInterval: the CPU share is the CPU time used over
// the wall time between two samples, and cpuBusy follows the last one.
func TestUsagePercentOverInterval(t *testing.T) {
	b := newFakeBackend()
	s, _ := newTestShared(t, b, 2, Config{})
	p := s.Grid()[0]
	sample := sampler(s, p)
	sample(0, 0)
	sample(2*time.Second, time.Second)
	if info := s.InfoAt(0); !info.HasUsage || math.Abs(info.CPUPercent-50) > 0.01 || !p.cpuBusy {
		t.Errorf("1s of CPU over 2s: %v%%, busy %v; want 50%% and busy", info.CPUPercent, p.cpuBusy)
	}
	sample(4*time.Second, time.Second+20*time.Millisecond)
	if info := s.InfoAt(0); math.Abs(info.CPUPercent-1) > 0.01 || p.cpuBusy {
		t.Errorf("20ms of CPU over 2s: %v%%, busy %v; want 1%% and not busy", info.CPUPercent, p.cpuBusy)
	}
	sample(6*time.Second, 0) // a tree whose busy child exited unwaited for
	if info := s.InfoAt(0); info.CPUPercent != 0 {
		t.Errorf("a drop in CPU time reads %v%%, want 0", info.CPUPercent)
	}
	sample(8*time.Second, 2*time.Second)
	p.phase = PhaseKilled
	update(s, usageMsg{})
	if info := s.InfoAt(0); info.HasUsage || p.cpuBusy {
		t.Errorf("a killed pane still shows its usage (%+v) or counts as busy (%v)", info, p.cpuBusy)
	}
	p.phase = PhaseRunning
	// A sample of an older generation (the pane restarted since) is dropped.
	update(s, usageMsg{samples: []usageSample{{key: p.Key(), gen: p.gen - 1, at: muxtest.FixedNow().Add(8 * time.Second), usage: providers.Usage{CPU: time.Hour}, ok: true}}})
	if info := s.InfoAt(0); math.Abs(info.CPUPercent-100) > 0.01 {
		t.Errorf("a stale sample counted: %v%%, want the 100%% of the last", info.CPUPercent)
	}
}

// Samples taken on demand may come milliseconds apart: the share is
// over a second at least, so one step of a counter read in clock ticks
// does not make an idle pane busy.
func TestUsageShareOverASecondAtLeast(t *testing.T) {
	b := newFakeBackend()
	s, _ := newTestShared(t, b, 2, Config{})
	p := s.Grid()[0]
	sample := sampler(s, p)
	sample(0, 100*time.Millisecond)
	sample(5*time.Second, 100*time.Millisecond)
	sample(5*time.Second+20*time.Millisecond, 110*time.Millisecond) // one 10 ms tick, 20 ms on
	if info := s.InfoAt(0); math.Abs(info.CPUPercent-10.0/50.2) > 0.01 || p.cpuBusy {
		t.Errorf("a 10 ms tick 20 ms after the last sample: %v%%, busy %v; want it over the 5.02 s since the one before, and not busy", info.CPUPercent, p.cpuBusy)
	}
	sample(5*time.Second+40*time.Millisecond, 110*time.Millisecond)
	sample(6*time.Second+10*time.Millisecond, 610*time.Millisecond) // half a core since 5 s
	if info := s.InfoAt(0); math.Abs(info.CPUPercent-510.0/10.1) > 0.01 || !p.cpuBusy {
		t.Errorf("510 ms of CPU over the 1.01 s since the sample at 5 s: %v%%, busy %v; want 50.5%% and busy", info.CPUPercent, p.cpuBusy)
	}
	sample(6*time.Second+30*time.Millisecond, 610*time.Millisecond)
	if info := s.InfoAt(0); math.Abs(info.CPUPercent-510.0/10.3) > 0.01 || !p.cpuBusy {
		t.Errorf("nothing more 20 ms on: %v%%, busy %v; want the 510 ms over the 1.03 s since 5 s, and busy", info.CPUPercent, p.cpuBusy)
	}
	// Polled every 200 ms, the base still moves on: each share is over
	// one to two seconds, not since the first sample.
	for at := 6*time.Second + 230*time.Millisecond; at < 9*time.Second; at += 200 * time.Millisecond {
		sample(at, 610*time.Millisecond)
	}
	if info := s.InfoAt(0); info.CPUPercent != 0 || p.cpuBusy {
		t.Errorf("idle for 2.8 s, polled every 200 ms: %v%%, busy %v; want 0%%", info.CPUPercent, p.cpuBusy)
	}
}

// TestUsageIdleWithoutRunningPanes: no pane runs, no timer is set, and a
// sample that finds none running sets none either.
func TestUsageIdleWithoutRunningPanes(t *testing.T) {
	b := newFakeBackend()
	b.StartErr["apane"] = muxtest.ErrFailedStart
	s, _ := newTestShared(t, b, 1, Config{})
	if s.usageArmed {
		t.Error("a usage timer while no pane runs")
	}
	s2, _ := newTestShared(t, newFakeBackend(), 1, Config{})
	s2.Grid()[0].phase = PhaseKilled
	if cmd := s2.handleUsage(usageMsg{}); cmd != nil || s2.usageArmed {
		t.Error("a new usage timer once no pane runs")
	}
}

// Idle is idle: each round in which no pane was busy or wrote doubles
// the wait before the next, up to usageIdleMax; output brings it back to
// usageEvery, and a sample on demand (the session list opened) comes at once, leaving the
// timer that waited with nothing to do.
func TestUsageBacksOffWhileIdle(t *testing.T) {
	b := newFakeBackend()
	s, _ := newTestShared(t, b, 2, Config{})
	p := s.Grid()[0]
	round := func(cpu time.Duration) {
		update(s, usageMsg{samples: []usageSample{{key: p.Key(), gen: p.gen, at: s.Now(), usage: providers.Usage{CPU: cpu}, ok: true}}})
	}
	round(0) // the panes' first frames count as output
	var got []time.Duration
	for range 6 {
		round(0)
		got = append(got, s.usageInterval())
	}
	want := []time.Duration{4 * time.Second, 8 * time.Second, 16 * time.Second, 16 * time.Second, 16 * time.Second, 16 * time.Second}
	if !slices.Equal(got, want) {
		t.Errorf("intervals while idle %v, want %v", got, want)
	}
	s.usageOutput = true // a pane wrote: its frame was taken
	round(0)
	if d := s.usageInterval(); d != usageEvery {
		t.Errorf("after output the interval is %v, want %v", d, usageEvery)
	}
	round(0)
	stale := usageTickMsg{gen: s.usageGen}
	cmd := s.SampleUsageNow() // a reader of the figures opened (the session list)
	if cmd == nil || s.usageInterval() != usageEvery {
		t.Fatalf("a sample on demand: command %v, interval %v; want a sample and %v", cmd != nil, s.usageInterval(), usageEvery)
	}
	if cmd := update(s, stale); cmd != nil {
		t.Error("the timer a sample on demand replaced still sampled")
	}
}

// The timer's ticks and the samples are quiet: they redraw nothing
// unless their handler says so.
func TestUsageMessagesAreQuiet(t *testing.T) {
	if !Quiet(usageMsg{}) || !Quiet(usageTickMsg{}) {
		t.Fatal("usage messages must be quiet")
	}
}

// sampler returns a function that hands s one usage sample of p, taken
// at muxtest.FixedNow plus at, with cpu of CPU time used so far.
func sampler(s *Shared, p *Pane) func(at, cpu time.Duration) {
	t0 := muxtest.FixedNow()
	return func(at, cpu time.Duration) {
		update(s, usageMsg{samples: []usageSample{{key: p.Key(), gen: p.gen, at: t0.Add(at), usage: providers.Usage{CPU: cpu, RSS: 1 << 20}, ok: true}}})
	}
}
