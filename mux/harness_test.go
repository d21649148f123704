package mux

import (
	"context"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/mux/muxtest"
	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/session"
)

// fakeBackend is muxtest's fake Manager, as the shared side speaks to it.
type fakeBackend struct{ *muxtest.Backend }

func newFakeBackend() *fakeBackend { return &fakeBackend{muxtest.NewBackend()} }

func (b *fakeBackend) Start(ctx context.Context, provider string, spec providers.Spec, opts session.Options) (Session, error) {
	s, err := b.StartSession(ctx, provider, spec, opts)
	if s == nil {
		return nil, err // no nil *muxtest.Session inside the interface
	}
	return s, err
}

// stubViews stands for the clients' views: it records what the shared
// side tells them, as one line each, and lays every pane out at size.
type stubViews struct {
	told    []string
	size    providers.Size
	looking *Pane // the pane some view focuses: it needs no attention mark
	marked  map[*Pane]bool
	notices map[int]string
}

func (v *stubViews) tell(what string, p *Pane) {
	v.told = append(v.told, what+" "+p.spec.Name)
}

func (v *stubViews) PaneAdded(p *Pane) tea.Cmd { v.tell("added", p); return nil }
func (v *stubViews) PaneRemoved(key, _ int) tea.Cmd {
	v.told = append(v.told, "removed "+paneName(key))
	return nil
}
func (v *stubViews) PaneChanged(p *Pane, c Change) {
	v.tell(map[Change]string{ChangeStarted: "started", ChangeClosed: "closed"}[c], p)
	if c == ChangeStarted {
		delete(v.marked, p) // a new screen: its mark goes, as a view's does
	}
}
func (v *stubViews) NeedsAttention(p *Pane, _ *PaneInfo) bool {
	v.tell("attention", p)
	if p == v.looking {
		return false
	}
	v.marked[p] = true
	return true
}
func (v *stubViews) Settled() []tea.Cmd          { v.told = append(v.told, "settled"); return nil }
func (v *stubViews) BodySize(int) providers.Size { return v.size }
func (v *stubViews) Notice(id int, text string)  { v.notices[id] = text }

// newStubViews are the views of one client laid out at 80×24.
func newStubViews() *stubViews {
	return &stubViews{size: providers.Size{Cols: 80, Rows: 24}, marked: map[*Pane]bool{}, notices: map[int]string{}}
}

func paneName(i int) string { return string(rune('a'+i%26)) + "pane" }

// newTestShared is the shared side of n panes, each laid out at 80×24
// and started here: each start command is run, its message delivered.
func newTestShared(t testing.TB, b *fakeBackend, n int, cfg Config) (*Shared, *stubViews) {
	t.Helper()
	var specs []PaneSpec
	for i := range n {
		name := paneName(i)
		specs = append(specs, PaneSpec{Name: name, Provider: "local", Spec: providers.Spec{Command: []string{"sh"}}})
		if _, ok := b.Output[name]; !ok {
			b.Output[name] = "$ echo " + name + "\r\n" + name + "\r\n$ "
		}
	}
	if cfg.Scrollback == 0 {
		cfg.Scrollback = 1000
	}
	v := newStubViews()
	s := NewShared(t.Context(), cfg, b, v, specs)
	s.SetClock(muxtest.FixedNow)
	for _, start := range startsOf(s, s.StartAll()) {
		update(s, start())
	}
	frame(s) // the starts' output, as the first frame takes it
	t.Cleanup(func() {
		s.StopWatching()
		for _, p := range s.Grid() {
			if p.recs.rec != nil {
				_ = p.recs.rec.Stop()
			}
			if p.recs.ring != nil {
				p.recs.ring.Close()
			}
			if p.screen != nil {
				p.screen.Close()
			}
		}
	})
	return s, v
}

// startsOf unpacks StartAll's batch: one start a pane, in grid order.
func startsOf(s *Shared, cmd tea.Cmd) []tea.Cmd {
	switch len(s.panes) {
	case 0:
		return nil
	case 1:
		return []tea.Cmd{cmd}
	}
	return cmd().(tea.BatchMsg)
}

// update hands msg to the shared side, then does what the model does
// after each message, and returns both commands.
func update(s *Shared, msg tea.Msg) tea.Cmd {
	cmd, _ := s.Update(msg)
	return tea.Batch(cmd, s.AfterUpdate(false))
}

// frame feeds every pane's new output to its state, as a frame does.
func frame(s *Shared) {
	for _, p := range s.panes {
		if p.screen == nil {
			continue
		}
		select {
		case <-p.screen.Dirty():
			s.FeedSignals(p, s.now())
			s.Wrote()
		default:
		}
	}
	update(s, nil)
}
