package keys

import (
	"slices"
	"strconv"
)

// Binding is one [keys] entry: Key (as NormalizeBinding spells it) runs
// the action named Action (ActionNone: nothing) after the prefix, or,
// with Root, at once, as tmux's bind -n.
type Binding struct {
	Root        bool
	Key, Action string
}

// ActionNone, bound to a key in [keys], unbinds it.
const ActionNone = "none"

// actionNames is every action a binding may run, in the order help lists
// them; the UI's action table has one entry of each name, in this order
// (its test says when they part).
var actionNames = slices.Concat([]string{
	"help", "new-pane", "new-command",
	"focus-left", "focus-right", "focus-up", "focus-down", "focus-next",
}, focusNames(), []string{
	"go-to", "next-page", "previous-page", "list", "zoom", "close", "kill", "restart",
	"scrollback", "find", "broadcast", "pick", "rename",
	"record", "mark", "save-last", "record-view", "detach", "quit", "send-prefix",
})

// focusNames are focus-1 … focus-9.
func focusNames() []string {
	out := make([]string, 9)
	for i := range out {
		out[i] = "focus-" + strconv.Itoa(i+1)
	}
	return out
}

// ActionNames returns the name of every action, as [keys] binds them, in
// help's order.
func ActionNames() []string { return slices.Clone(actionNames) }
