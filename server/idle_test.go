package server

import (
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sandmux/sandmux/attach"
	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/session"
	"github.com/sandmux/sandmux/ui"
)

// Idle is idle: the core program renders nothing, so once it runs no
// ticker of Bubble Tea's renderer wakes the server. In a bubble, time
// only moves on when every goroutine waits, so a second's sleep lets the
// start settle, and a ticker, had it been left, would still be there.
func TestCoreRunsNoRendererTicker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mgr := session.NewManager(providers.Table{})
		model := ui.New(t.Context(), ui.Config{Prefix: "ctrl+b", FPS: 60}, ui.FromManager(mgr), nil)
		s := New(model, Options{Size: attach.Size{Width: 80, Height: 24}})
		var wg sync.WaitGroup
		wg.Go(func() { _ = s.Run(func(error) attach.Exit { return attach.Exit{} }) })
		time.Sleep(time.Second)
		synctest.Wait()
		buf := make([]byte, 1<<20)
		stacks := string(buf[:runtime.Stack(buf, true)])
		if strings.Contains(stacks, "startRenderer") {
			t.Errorf("the core's renderer goroutine still runs:\n%s", stacks)
		}
		s.Send(ui.QuitMsg{Kill: true})
		wg.Wait()
		mgr.Wait()
	})
}
