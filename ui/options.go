package ui

import (
	"github.com/sandmux/sandmux/keys"
	"github.com/sandmux/sandmux/mux"
	"github.com/sandmux/sandmux/status"
)

// Config holds the UI settings.
type Config struct {
	// Prefix is the key that introduces sandmux commands, as Bubble Tea
	// spells it ("ctrl+b").
	Prefix string
	// FPS bounds how often the screen is redrawn.
	FPS int
	// Scrollback is how many lines each pane keeps.
	Scrollback int
	// Status tunes each pane's state tracker (activity window, idle
	// after, debounce); Rules are the config's screen rules, compiled.
	Status status.Config
	Rules  []*status.Rule
	// Notify says how a pane entering waiting, done or failed is told to
	// each client that does not focus it.
	Notify Notify
	// OnNotify, when set, is told of each such entry, once, when some
	// client does not focus the pane or none is attached (the notify
	// command). It is called from Update: it must not block.
	OnNotify func(Notification)
	// Clipboard passes a pane's clipboard writes (OSC 52) on to the
	// terminals of the clients that may type; a pane's read of the
	// clipboard is never answered. ClipboardReadOnly passes them to
	// read-only clients too: by default a pane cannot set the clipboard
	// of someone who only watches (A16).
	Clipboard, ClipboardReadOnly bool
	// Bell and Notifications say whose bells and notifications (OSC 9,
	// OSC 777) reach the user's terminal: every pane's (PassAny), only
	// those of panes other than the focused one (PassOther), or none
	// (PassNone, the zero value).
	Bell, Notifications Pass
	// Events, when set, is told what happens to the panes and clients,
	// from Update: it must not block.
	Events func(Event)
	// Parsers is how many panes may parse output at once (0: as many as
	// Go runs code on at once).
	Parsers int
	// Record is [record]: the panes' rings and where recordings go.
	Record RecordConfig
	// Keys are the config's [keys] bindings, over the default ones.
	Keys []keys.Binding
	// Spawn makes the panes a client opens from the keyboard (prefix c
	// and C); nil: those keys say they cannot.
	Spawn *Spawner
}

// Pass says which panes' signals reach the user's terminal.
type Pass int

// The Pass values, as the config spells them: "none", "other", "any".
const (
	PassNone Pass = iota
	PassOther
	PassAny
)

// shared is the shared side's part of c.
func (c Config) shared() mux.Config {
	return mux.Config{Scrollback: c.Scrollback, Status: c.Status, Rules: c.Rules, Parsers: c.Parsers,
		Record: c.Record, OnNotify: c.OnNotify, Events: c.Events}
}

func (c Config) withDefaults() Config {
	if c.Prefix == "" {
		c.Prefix = keys.DefaultPrefix
	}
	if c.FPS <= 0 {
		c.FPS = keys.DefaultFPS
	}
	if c.Scrollback < 0 {
		c.Scrollback = 0
	}
	return c
}
