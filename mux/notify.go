package mux

// Notify says how a pane entering waiting, done or failed is told to a
// client that does not focus it.
type Notify uint8

// The ways, as the config's ui.notify list spells them ("command" runs
// Config.OnNotify's command and is no concern of the terminal's).
const (
	NotifyTerminal Notify = 1 << iota // an OSC 9 notification from sandmux
	NotifyBell                        // a bell
)

// Notification is a pane that entered waiting, done or failed while some
// client did not focus it, or none was attached.
type Notification struct {
	Pane PaneInfo // its State and Reason say what it entered, and why
}
