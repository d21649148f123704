package muxtest

import (
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// RunAll runs every command of cmd at once, as Bubble Tea does, and
// hands what they return to deliver, running the commands it returns in
// turn, while pending reports that something still waits (a recording's
// file). What is left, the timers and the watch, ends with the model: at
// the test's end stop frees the watch, and every command is waited for.
func RunAll(t testing.TB, cmd tea.Cmd, deliver func(tea.Msg) tea.Cmd, pending func() bool, stop func()) {
	t.Helper()
	msgs := make(chan tea.Msg, 64)
	var wg sync.WaitGroup
	var run func(tea.Cmd)
	run = func(c tea.Cmd) {
		if c == nil {
			return
		}
		wg.Go(func() {
			msg := c()
			if batch, ok := msg.(tea.BatchMsg); ok {
				for _, sub := range batch {
					run(sub)
				}
				return
			}
			if msg != nil {
				msgs <- msg
			}
		})
	}
	run(cmd)
	t.Cleanup(func() { stop(); wg.Wait() })
	timeout := time.After(10 * time.Second)
	for pending() {
		select {
		case msg := <-msgs:
			run(deliver(msg))
		case <-timeout:
			t.Fatal("what the test waits for never came (a recording's file never opened?)")
		}
	}
}
