package ui

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/sandmux/sandmux/mux"
	"github.com/sandmux/sandmux/providers"
)

// TestUsageSampledOffTheLoop: the timer set while panes run asks for one
// command that samples every running pane; Update itself reads nothing.
func TestUsageSampledOffTheLoop(t *testing.T) {
	b := newFakeBackend()
	b.startErr["cpane"] = errFailedStart
	m := newTestModel(t, b, 3, 160, 40)
	if !m.usageArmed {
		t.Fatal("no usage timer while panes run")
	}
	b.sessions[0].usage = &providers.Usage{CPU: time.Second, RSS: 4 << 20}
	before := b.total()
	_, cmd := m.Update(usageTickMsg{gen: m.usageGen})
	if b.total() != before || cmd == nil {
		t.Fatalf("the tick: %d blocking calls in Update, command %v; want none and a command", b.total()-before, cmd != nil)
	}
	msg, ok := cmd().(usageMsg)
	if !ok || len(msg.samples) != 2 || b.calls["Usage"] != 2 {
		t.Fatalf("the sample: %+v after %d Usage calls; want 2 samples, one per running pane", msg, b.calls["Usage"])
	}
	if _, cmd := m.Update(msg); cmd == nil || !m.usageArmed {
		t.Error("no new timer after a sample while panes run")
	}
	if info := m.InfoAt(0); !info.HasUsage || info.RSSBytes != 4<<20 {
		t.Errorf("apane: %+v; want its memory", info)
	}
	if info := m.InfoAt(1); info.HasUsage {
		t.Errorf("bpane's provider cannot tell, yet %+v", info)
	}
}

// TestUsagePercentOverInterval: the CPU share is the CPU time used over
// the wall time between two samples, and cpuBusy follows the last one.
func TestUsagePercentOverInterval(t *testing.T) {
	b := newFakeBackend()
	m := newTestModel(t, b, 2, 160, 40)
	p := m.Grid()[0]
	t0 := fixedNow()
	sample := func(at time.Duration, cpu time.Duration) {
		m.Update(usageMsg{samples: []usageSample{{key: p.Key(), gen: p.gen, at: t0.Add(at), usage: providers.Usage{CPU: cpu, RSS: 1 << 20}, ok: true}}})
	}
	sample(0, 0)
	sample(2*time.Second, time.Second)
	if info := m.InfoAt(0); !info.HasUsage || math.Abs(info.CPUPercent-50) > 0.01 || !p.cpuBusy {
		t.Errorf("1s of CPU over 2s: %v%%, busy %v; want 50%% and busy", info.CPUPercent, p.cpuBusy)
	}
	sample(4*time.Second, time.Second+20*time.Millisecond)
	if info := m.InfoAt(0); math.Abs(info.CPUPercent-1) > 0.01 || p.cpuBusy {
		t.Errorf("20ms of CPU over 2s: %v%%, busy %v; want 1%% and not busy", info.CPUPercent, p.cpuBusy)
	}
	sample(6*time.Second, 0) // a tree whose busy child exited unwaited for
	if info := m.InfoAt(0); info.CPUPercent != 0 {
		t.Errorf("a drop in CPU time reads %v%%, want 0", info.CPUPercent)
	}
	sample(8*time.Second, 2*time.Second)
	p.phase = mux.PhaseKilled
	m.Update(usageMsg{})
	if info := m.InfoAt(0); info.HasUsage || p.cpuBusy {
		t.Errorf("a killed pane still shows its usage (%+v) or counts as busy (%v)", info, p.cpuBusy)
	}
	p.phase = mux.PhaseRunning
	// A sample of an older generation (the pane restarted since) is dropped.
	m.Update(usageMsg{samples: []usageSample{{key: p.Key(), gen: p.gen - 1, at: t0.Add(8 * time.Second), usage: providers.Usage{CPU: time.Hour}, ok: true}}})
	if info := m.InfoAt(0); math.Abs(info.CPUPercent-100) > 0.01 {
		t.Errorf("a stale sample counted: %v%%, want the 100%% of the last", info.CPUPercent)
	}
}

// TestUsageIdleWithoutRunningPanes: no pane runs, no timer is set, and a
// sample that finds none running sets none either.
func TestUsageIdleWithoutRunningPanes(t *testing.T) {
	b := newFakeBackend()
	b.startErr["apane"] = errFailedStart
	m := newTestModel(t, b, 1, 80, 24)
	if m.usageArmed {
		t.Error("a usage timer while no pane runs")
	}
	m2 := newTestModel(t, newFakeBackend(), 1, 80, 24)
	m2.Grid()[0].phase = mux.PhaseKilled
	if cmd := m2.handleUsage(usageMsg{}); cmd != nil || m2.usageArmed {
		t.Error("a new usage timer once no pane runs")
	}
}

// TestUsageRedrawsOnlyTheList: a sample redraws nothing unless some
// client shows the session list.
func TestUsageRedrawsOnlyTheList(t *testing.T) {
	b := newFakeBackend()
	m := newTestModel(t, b, 2, 160, 40)
	if !quiet(usageMsg{}) || !quiet(usageTickMsg{}) {
		t.Fatal("usage messages must be quiet")
	}
	m.update(usageMsg{})
	if m.redraw {
		t.Error("a sample redraws with the list closed")
	}
	openList(t, m)
	m.update(usageMsg{})
	if !m.redraw {
		t.Error("a sample does not redraw the open list")
	}
}

// Idle is idle: each round in which no pane was busy or wrote doubles
// the wait before the next, up to usageIdleMax; output brings it back to
// usageEvery, and opening the session list samples at once, leaving the
// timer that waited with nothing to do.
func TestUsageBacksOffWhileIdle(t *testing.T) {
	b := newFakeBackend()
	m := newTestModel(t, b, 2, 160, 40)
	p := m.Grid()[0]
	round := func(cpu time.Duration) {
		m.Update(usageMsg{samples: []usageSample{{key: p.Key(), gen: p.gen, at: m.Now(), usage: providers.Usage{CPU: cpu}, ok: true}}})
	}
	round(0) // the panes' first frames count as output
	var got []time.Duration
	for range 6 {
		round(0)
		got = append(got, m.usageInterval())
	}
	want := []time.Duration{4 * time.Second, 8 * time.Second, 16 * time.Second, 16 * time.Second, 16 * time.Second, 16 * time.Second}
	if !slices.Equal(got, want) {
		t.Errorf("intervals while idle %v, want %v", got, want)
	}
	m.usageOutput = true // a pane wrote: its frame was taken
	round(0)
	if d := m.usageInterval(); d != usageEvery {
		t.Errorf("after output the interval is %v, want %v", d, usageEvery)
	}
	round(0)
	stale := usageTickMsg{gen: m.usageGen}
	press(m, "ctrl+b")
	cmd := send(m, keyMsg("w"))
	if m.lv().modalKind() != modalList || cmd == nil || m.usageInterval() != usageEvery {
		t.Fatalf("the session list: modal %v, command %v, interval %v; want the list, a sample and %v", m.lv().modalKind(), cmd != nil, m.usageInterval(), usageEvery)
	}
	if _, cmd := m.Update(stale); cmd != nil {
		t.Error("the timer a sample on demand replaced still sampled")
	}
}
