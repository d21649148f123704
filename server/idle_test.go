package server

import (
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	tea "charm.land/bubbletea/v2"

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
		// First, that the ticker is seen where it runs: a program with
		// the core's options, not released. Were Bubble Tea to rename its
		// renderer's goroutine, this fails instead of the check below
		// passing blind.
		plain := tea.NewProgram(nopModel{}, tea.WithInput(strings.NewReader("")), tea.WithOutput(io.Discard),
			tea.WithoutRenderer(), tea.WithoutSignalHandler(), tea.WithFPS(1))
		var pw sync.WaitGroup
		pw.Go(func() { _, _ = plain.Run() })
		time.Sleep(time.Second)
		synctest.Wait()
		if !strings.Contains(allStacks(), rendererGoroutine) {
			t.Fatalf("no %s goroutine in a program that renders: the check below would pass blind", rendererGoroutine)
		}
		plain.Quit()
		pw.Wait()

		mgr := session.NewManager(providers.Table{})
		model := ui.New(t.Context(), ui.Config{Prefix: "ctrl+b", FPS: 60}, ui.FromManager(mgr), nil)
		s := New(model, Options{Size: attach.Size{Width: 80, Height: 24}})
		var wg sync.WaitGroup
		wg.Go(func() { _ = s.Run(func(error) attach.Exit { return attach.Exit{} }) })
		time.Sleep(time.Second)
		synctest.Wait()
		if stacks := allStacks(); strings.Contains(stacks, rendererGoroutine) {
			t.Errorf("the core's renderer goroutine still runs:\n%s", stacks)
		}
		s.Send(ui.QuitMsg{Kill: true})
		wg.Wait()
		mgr.Wait()
	})
}

// rendererGoroutine is the function Bubble Tea's renderer ticker runs in.
const rendererGoroutine = "startRenderer"

func allStacks() string {
	buf := make([]byte, 1<<20)
	return string(buf[:runtime.Stack(buf, true)])
}

type nopModel struct{}

func (nopModel) Init() tea.Cmd                       { return nil }
func (nopModel) Update(tea.Msg) (tea.Model, tea.Cmd) { return nopModel{}, nil }
func (nopModel) View() tea.View                      { return tea.View{} }
