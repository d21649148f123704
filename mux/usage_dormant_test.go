package mux

import (
	"testing"
	"time"

	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/session/vt"
)

// sampleRound runs the usage timer's round as the model would: the tick,
// the command it asks for, and its samples' message. It returns how many
// panes were sampled.
func sampleRound(t *testing.T, s *Shared) int {
	t.Helper()
	if !s.usageArmed {
		return 0
	}
	sample := s.usageTick(usageTickMsg{gen: s.usageGen})
	if sample == nil {
		t.Fatal("the tick of an armed timer sampled nothing")
	}
	msg := sample().(usageMsg)
	update(s, msg)
	return len(msg.samples)
}

// Idle is idle: a pane that neither wrote, nor was typed into, nor was
// busy for usageDormant of its rounds is sampled no more, and once every
// pane is, no usage timer is set at all, however long the server runs.
func TestUsageDormantPanesArmNoTimer(t *testing.T) {
	b := newFakeBackend()
	s, _ := newTestShared(t, b, 2, Config{})
	for _, sess := range b.Sessions {
		sess.Use = &providers.Usage{CPU: time.Second, RSS: 1 << 20}
	}
	rounds := 0
	for s.usageArmed {
		if rounds++; rounds > 2*usageDormant {
			t.Fatalf("still sampling after %d quiet rounds, want at most %d", rounds-1, usageDormant+1)
		}
		sampleRound(t, s)
	}
	// The first round counts the starts' output; then usageDormant quiet ones.
	if rounds != usageDormant+1 {
		t.Errorf("the timer stopped after %d rounds, want %d", rounds, usageDormant+1)
	}
	if cmd := update(s, nil); cmd != nil || s.usageArmed {
		t.Error("an Update set a usage timer while every pane is dormant")
	}
	// What was sampled last stays what the panes show.
	if info := s.InfoAt(0); !info.HasUsage || info.RSSBytes != 1<<20 {
		t.Errorf("a dormant pane shows %+v, want its last sample", info)
	}
}

// A dormant pane's output or input wakes it: the timer is set again, at
// usageEvery, and samples that pane alone; a reader of the figures
// samples every running pane, dormant or not.
func TestUsageDormantPaneWakes(t *testing.T) {
	b := newFakeBackend()
	s, _ := newTestShared(t, b, 3, Config{})
	for _, sess := range b.Sessions {
		sess.Use = &providers.Usage{CPU: time.Second}
	}
	for range usageDormant + 1 {
		sampleRound(t, s)
	}
	if s.usageArmed {
		t.Fatal("a timer is set while every pane is dormant")
	}
	b.Sessions[1].OutputAt(s.Now().Add(time.Second))
	s.FeedSignals(s.Grid()[1], s.Now()) // bpane's frame
	update(s, nil)
	if !s.usageArmed || s.usageInterval() != usageEvery {
		t.Fatalf("after output: timer %v, interval %v; want one, at %v", s.usageArmed, s.usageInterval(), usageEvery)
	}
	if n := sampleRound(t, s); n != 1 {
		t.Errorf("after bpane wrote, a round sampled %d panes, want bpane alone", n)
	}
	for range usageDormant {
		sampleRound(t, s)
	}
	if s.usageArmed {
		t.Fatal("bpane quiet again, still a timer")
	}
	if err := s.Input(s.Grid()[2].ID(), func(vt.Modes) []byte { return []byte("make\r") }); err != nil {
		t.Fatal(err)
	}
	update(s, nil)
	if n := sampleRound(t, s); n != 1 {
		t.Errorf("after cpane was typed into, a round sampled %d panes, want cpane alone", n)
	}
	cmd := s.SampleUsageNow()
	if cmd == nil {
		t.Fatal("a reader of the figures sampled nothing")
	}
	if msg := cmd().(usageMsg); len(msg.samples) != 3 {
		t.Errorf("a sample on demand read %d panes, want all 3", len(msg.samples))
	}
}

// A pane busy without a word stays awake: its CPU is activity.
func TestUsageBusyPaneStaysAwake(t *testing.T) {
	b := newFakeBackend()
	s, _ := newTestShared(t, b, 1, Config{})
	use := providers.Usage{}
	b.Sessions[0].Use = &use
	start := time.Now()
	for i := range 3 * usageDormant {
		b.Mu.Lock()
		use.CPU += time.Hour // far over busyCPU whatever the interval
		b.Mu.Unlock()
		if !s.usageArmed {
			t.Fatalf("round %d of a busy pane: no timer", i)
		}
		msg := s.usageTick(usageTickMsg{gen: s.usageGen})().(usageMsg)
		for j := range msg.samples {
			// Rounds as the timer spaces them: a share over less than
			// minShareWindow is not taken for work.
			msg.samples[j].at = start.Add(time.Duration(i+1) * 2 * time.Second)
		}
		update(s, msg)
		if n := len(msg.samples); n != 1 {
			t.Fatalf("round %d of a busy pane sampled %d panes, want it", i, n)
		}
	}
}

// A server whose panes wrote at their start and then nothing samples for
// the last time 14 s after the round that saw that output (which comes
// usageEvery after the start): settled within the 20 s after which an
// idle server is measured to cost nothing.
func TestUsageSettlesFourteenSecondsAfterTheLastOutput(t *testing.T) {
	b := newFakeBackend()
	s, _ := newTestShared(t, b, 3, Config{})
	for _, sess := range b.Sessions {
		sess.Use = &providers.Usage{CPU: time.Second, RSS: 1 << 20}
	}
	if !s.usageArmed {
		t.Fatal("no usage timer set for running panes")
	}
	// The first round (usageEvery after the start) sees the starts'
	// output; the waits after it sum to when the last round comes.
	var after time.Duration
	for rounds := 0; ; rounds++ {
		if rounds > 3*usageDormant {
			t.Fatalf("still sampling after %d rounds", rounds)
		}
		sampleRound(t, s)
		if !s.usageArmed {
			break
		}
		after += s.usageInterval()
	}
	if want := 14 * time.Second; after > want {
		t.Errorf("the last usage round came %v after the one that saw the output, want at most %v", after, want)
	}
}
