package server

import (
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/attach"
	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/session"
	"github.com/sandmux/sandmux/ui"
)

// Idle is idle: once an idle server started, nothing reaches its model.
// In a bubble, time only moves on when every goroutine waits, so an hour
// of sleep runs every timer and ticker the server left, and the filter,
// which sees every message before the model, counts what they sent.
// (Under Bubble Tea's program, its renderer's ticker had sent a message
// every second.)
func TestIdleCoreGetsNoMessages(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var msgs atomic.Int64
		count := func(_ tea.Model, msg tea.Msg) tea.Msg { msgs.Add(1); return msg }
		mgr := session.NewManager(providers.Table{})
		model := ui.New(t.Context(), ui.Config{Prefix: "ctrl+b", FPS: 60}, ui.FromManager(mgr), nil)
		s := New(model, Options{Size: attach.Size{Width: 80, Height: 24}, Filter: count})
		var wg sync.WaitGroup
		wg.Go(func() { _ = s.Run(func(error) attach.Exit { return attach.Exit{} }) })
		time.Sleep(time.Second)
		synctest.Wait()
		started := msgs.Load()
		if started == 0 {
			t.Fatal("the filter saw no message, not even the start: the count below would pass blind")
		}
		time.Sleep(time.Hour)
		synctest.Wait()
		if n := msgs.Load() - started; n > 0 {
			t.Errorf("an idle server's model got %d messages in an hour", n)
		}
		s.Send(ui.QuitMsg{Kill: true})
		wg.Wait()
		mgr.Wait()
	})
}
