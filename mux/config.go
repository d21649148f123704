package mux

import "github.com/sandmux/sandmux/status"

// Config is what the shared side is set up with: the part of the UI's
// config that concerns the panes every client shares (ui.Config holds it
// with the views' part; its fields say what each one means).
type Config struct {
	Scrollback int                // lines each pane keeps
	Status     status.Config      // each pane's state tracker
	Rules      []*status.Rule     // the config's screen rules, compiled
	Parsers    int                // panes that may parse output at once (0: GOMAXPROCS)
	Record     RecordConfig       // [record]
	OnNotify   func(Notification) // told of an entry into waiting, done or failed nobody saw; must not block
	Events     func(Event)        // told what happens to panes and clients; must not block
}
