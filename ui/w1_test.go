package ui

import (
	"archive/tar"
	"context"
	"crypto/rand"
	"io"
	"path/filepath"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/mux"
	"github.com/sandmux/sandmux/session"
	"github.com/sandmux/sandmux/snapshot"
)

// snapshotBackend is the fake backend whose Close writes a real snapshot
// archive, from a workspace stream that stops midway until the test
// releases it.
type snapshotBackend struct {
	*fakeBackend
	archive  string
	midway   chan struct{} // closed once the archive is being written
	release  chan struct{} // the test lets the stream finish
	saveDone chan error
}

func (b *snapshotBackend) Close(ctx context.Context, id session.ID) error {
	b.Count("Close")
	src := snapshot.TarSource(func(ctx context.Context, w io.Writer) error {
		tw := tar.NewWriter(w)
		payload := make([]byte, 8<<20)
		rand.Read(payload)
		for i, name := range []string{"a.bin", "b.bin"} {
			if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(payload)), Typeflag: tar.TypeReg}); err != nil {
				return err
			}
			if _, err := tw.Write(payload); err != nil {
				return err
			}
			if i == 0 {
				close(b.midway)
				<-b.release
			}
		}
		return tw.Close()
	})
	_, err := snapshot.Save(ctx, src, b.archive, snapshot.SaveOptions{Sandbox: "apane"})
	b.saveDone <- err
	b.End(id, session.Info{}.Exit, true)
	return err
}

type pingMsg int

// TestContract_W1_UILiveDuringSnapshot runs the real Bubble Tea loop:
// while a pane's close writes a large snapshot (held midway), the loop
// keeps handling every message sent to it.
func TestContract_W1_UILiveDuringSnapshot(t *testing.T) {
	b := &snapshotBackend{
		fakeBackend: newFakeBackend(),
		archive:     filepath.Join(t.TempDir(), "snap.tar.zst"),
		midway:      make(chan struct{}), release: make(chan struct{}), saveDone: make(chan error, 1),
	}
	seen := make(chan tea.Msg, 256)
	// The panes' starts and the close, as the model reports them.
	events := func(e Event) {
		if e.Kind == EventStarted || e.Kind == EventClosed {
			seen <- e
		}
	}
	m := New(t.Context(), Config{Prefix: "ctrl+b", Events: events}, b, []mux.PaneSpec{{Name: "apane", Provider: "fake"}, {Name: "bpane", Provider: "fake"}})
	filter := func(_ tea.Model, msg tea.Msg) tea.Msg {
		if _, ok := msg.(pingMsg); ok {
			seen <- msg
		}
		return msg
	}
	p := tea.NewProgram(m, tea.WithInput(nil), tea.WithOutput(io.Discard),
		tea.WithoutSignalHandler(), tea.WithFilter(filter))
	ran := make(chan error, 1)
	go func() { _, err := p.Run(); ran <- err }()
	p.Send(AttachMsg{ID: 0, Width: 120, Height: 40}) // the first client starts the panes

	waitMsgs := func(what string, n int, match func(tea.Msg) bool) {
		t.Helper()
		timeout := time.After(30 * time.Second)
		for n > 0 {
			select {
			case msg := <-seen:
				if match(msg) {
					n--
				}
			case <-timeout:
				t.Fatalf("the UI loop stopped handling messages: still waiting for %d %s", n, what)
			}
		}
	}
	waitMsgs("started panes", 2, func(msg tea.Msg) bool { e, ok := msg.(Event); return ok && e.Kind == EventStarted })

	for _, k := range []string{"ctrl+b", "x", "y"} { // x asks first on a pane that runs
		p.Send(ClientMsg{ID: 0, Msg: keyMsg(k)})
	}
	<-b.midway
	for i := range 100 {
		p.Send(pingMsg(i))
	}
	waitMsgs("pings", 100, func(msg tea.Msg) bool { _, ok := msg.(pingMsg); return ok })
	select {
	case err := <-b.saveDone:
		t.Fatalf("the snapshot finished (%v) before the test released it: the check proves nothing", err)
	default:
	}

	close(b.release)
	if err := <-b.saveDone; err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	waitMsgs("the close", 1, func(msg tea.Msg) bool { e, ok := msg.(Event); return ok && e.Kind == EventClosed })
	if _, err := snapshot.Verify(t.Context(), b.archive, snapshot.VerifyOptions{}); err != nil {
		t.Errorf("the archive written during the test does not verify: %v", err)
	}
	p.Send(QuitMsg{})
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
}
