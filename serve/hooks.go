package serve

import (
	"os"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/ui"
)

// panicFilter makes the server's model panic on the key named by
// SANDMUX_TEST_PANIC_KEY, for the test that a panic still restores every
// client's terminal and tears every session down: there is no other way
// to make sandmux panic. Without the variable it is nil.
func panicFilter() func(tea.Model, tea.Msg) tea.Msg {
	key := os.Getenv("SANDMUX_TEST_PANIC_KEY")
	if key == "" {
		return nil
	}
	return func(_ tea.Model, msg tea.Msg) tea.Msg {
		if c, ok := msg.(ui.ClientMsg); ok {
			if k, ok := c.Msg.(tea.KeyPressMsg); ok && k.String() == key {
				panic("test panic requested by SANDMUX_TEST_PANIC_KEY")
			}
		}
		return msg
	}
}
