package ui

import (
	"slices"
	"strconv"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/keys"
	"github.com/sandmux/sandmux/keys/encode"
)

// The actions: every command a client can run from the keyboard, by the
// name [keys] binds it to. One table gives the default keys, the help
// overlay and the dispatch, so that what help says is what a key does.

// action is one sandmux command.
type action struct {
	// name is how [keys] names the action ("new-pane").
	name string
	// keys are its default keys after the prefix.
	keys []string
	help string
	run  func(v *view) tea.Cmd
	// group joins actions help shows as one line (focus-1 … focus-9),
	// under the first one's help and groupKeys.
	group, groupKeys string
	// touches: the action changes a pane or the server, so a read-only
	// client may not run it.
	touches bool
}

// actionSendPrefix sends the prefix key to the pane; by default it is
// bound to the prefix itself, whatever key that is.
const actionSendPrefix = "send-prefix"

// actions is every action, in the order help lists them.
var actions = slices.Concat([]action{
	{name: "help", keys: []string{"?"}, help: "show or hide this help", run: (*view).toggleHelp},
	{name: "new-pane", keys: []string{"c"}, help: "open a local shell pane where this client started (or pick one of the config's sandboxes)", run: (*view).newPane, touches: true},
	{name: "new-command", keys: []string{"C"}, help: "open a pane running a command line typed at the prompt", run: (*view).startNewCommand, touches: true},
	{name: "focus-left", keys: []string{"left"}, help: "focus the pane to the left", run: func(v *view) tea.Cmd { return v.moveFocus(-1, 0) }},
	{name: "focus-right", keys: []string{"right"}, help: "focus the pane to the right", run: func(v *view) tea.Cmd { return v.moveFocus(1, 0) }},
	{name: "focus-up", keys: []string{"up"}, help: "focus the pane above", run: func(v *view) tea.Cmd { return v.moveFocus(0, -1) }},
	{name: "focus-down", keys: []string{"down"}, help: "focus the pane below", run: func(v *view) tea.Cmd { return v.moveFocus(0, 1) }},
	{name: "focus-next", keys: []string{"o"}, help: "focus the next pane", run: (*view).focusNext},
}, focusActions(), []action{
	{name: "go-to", keys: []string{"'", "g"}, help: "focus the pane whose number is typed next (then enter): panes past 9; w lists them all", run: (*view).startGoTo},
	{name: "next-page", keys: []string{"n"}, help: "next page", run: func(v *view) tea.Cmd { return v.turnPage(1) }},
	{name: "previous-page", keys: []string{"p"}, help: "previous page", run: func(v *view) tea.Cmd { return v.turnPage(-1) }},
	{name: "list", keys: []string{"w"}, help: "list every session: / or typing filters, enter goes to it, x k r act on it", run: (*view).openSessions},
	{name: "zoom", keys: []string{"z"}, help: "zoom the focused pane, or unzoom", run: (*view).toggleZoom},
	{name: "close", keys: []string{"x"}, help: "close the pane, asking if it runs (teardown, snapshot); dismiss a failed close.", run: (*view).closeFocused, touches: true},
	{name: "kill", keys: []string{"k"}, help: "kill the pane's processes now (SIGKILL)", run: (*view).killFocused, touches: true},
	{name: "restart", keys: []string{"r"}, help: "restart an exited, killed or failed pane", run: (*view).restartFocused, touches: true},
	{name: "scrollback", keys: []string{"["}, help: "scrollback: arrows, pgup/pgdn, / search, n/N; v selects, y copies (below); q or esc leaves", run: (*view).enterScroll},
	{name: "find", keys: []string{"/"}, help: "search all panes' screens and scrollback; enter opens the match there", run: (*view).openFind},
	{name: "broadcast", keys: []string{"b"}, help: "broadcast input to the picked panes, or stop", run: (*view).toggleBroadcast, touches: true},
	{name: "pick", keys: []string{"space"}, help: "pick or unpick the pane for broadcast", run: (*view).togglePick, touches: true},
	{name: "rename", keys: []string{","}, help: "rename the pane", run: (*view).startRename, touches: true},
	{name: "record", keys: []string{"R"}, help: "record the pane to a cast file, or stop", run: (*view).toggleRecording, touches: true},
	{name: "mark", keys: []string{"M"}, help: "add a marker to the pane's recording", run: (*view).markRecording, touches: true},
	{name: "save-last", keys: []string{"S"}, help: "save the pane's last minutes (as [record] retain keeps) to a cast file", run: (*view).saveLastFocused, touches: true},
	{name: "record-view", keys: []string{"V"}, help: "record this client's whole view to a cast file, or stop", run: (*view).toggleViewRecording, touches: true},
	{name: "detach", keys: []string{"d"}, help: "detach this client: everything goes on", run: (*view).detach},
	{name: "quit", keys: []string{"q"}, help: "quit (asks while sessions run)", run: (*view).requestQuit, touches: true},
	{name: actionSendPrefix, help: "send the prefix key itself to the pane", run: (*view).sendPrefix},
})

// focusActions are focus-1 … focus-9, one line in help.
func focusActions() []action {
	out := make([]action, 9)
	for i := range out {
		n := strconv.Itoa(i + 1)
		out[i] = action{name: "focus-" + n, keys: []string{n}, group: "focus-N", groupKeys: "1…9",
			help: "focus the pane with that number (shown first in its title)",
			run:  func(v *view) tea.Cmd { return v.setFocus(i) }}
	}
	return out
}

// actionNames returns the name of every action in the table, in help's
// order: keys.ActionNames, which the config checks bindings against.
func actionNames() []string {
	names := make([]string, len(actions))
	for i, a := range actions {
		names[i] = a.name
	}
	return names
}

func actionNamed(name string) *action {
	for i := range actions {
		if actions[i].name == name {
			return &actions[i]
		}
	}
	return nil
}

// keyTables are a model's bindings: the prefix table (keys after the
// prefix) and the root table (keys that act at once).
type keyTables struct {
	prefix, root map[string]*action
}

// newKeyTables lays the config's bindings over the defaults: each
// action's keys, and send-prefix on the prefix itself. A binding of an
// action the table does not have unbinds the key (Load refuses those).
func newKeyTables(prefixKey string, binds []keys.Binding) keyTables {
	t := keyTables{prefix: map[string]*action{}, root: map[string]*action{}}
	for i := range actions {
		for _, k := range actions[i].keys {
			t.prefix[k] = &actions[i]
		}
	}
	t.prefix[prefixKey] = actionNamed(actionSendPrefix)
	for _, b := range binds {
		table := t.prefix
		if b.Root {
			table = t.root
		}
		if a := actionNamed(b.Action); a != nil {
			table[b.Key] = a
		} else {
			delete(table, b.Key)
		}
	}
	return t
}

// keysOf returns the keys of table bound to a, in a stable order: the
// action's default keys first, then the others sorted.
func keysOf(table map[string]*action, a *action) []string {
	var out []string
	for _, k := range a.keys {
		if table[k] == a {
			out = append(out, k)
		}
	}
	var more []string
	for k, b := range table {
		if b == a && !slices.Contains(out, k) {
			more = append(more, k)
		}
	}
	slices.Sort(more)
	return append(out, more...)
}

// runAction runs a bound action for this client, refusing one that
// touches panes on a read-only client.
func (v *view) runAction(a *action) tea.Cmd {
	if a.touches && v.readOnly {
		v.notice = "read-only"
		return nil
	}
	return a.run(v)
}

func (v *view) sendPrefix() tea.Cmd {
	k, err := encode.ParseKeyName(v.m.opts.Prefix)
	if err != nil {
		return nil // a prefix a terminal cannot send is never typed either
	}
	return v.sendKey(k)
}
