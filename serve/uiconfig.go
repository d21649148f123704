package serve

import (
	"github.com/sandmux/sandmux/config"
	"github.com/sandmux/sandmux/endpoint"
	"github.com/sandmux/sandmux/status"
	"github.com/sandmux/sandmux/ui"
	"github.com/sandmux/sandmux/xdg"
)

// uiConfig is the UI's config from the file's options; events is where
// the model's events go, parsers how many screens parse at once.
func uiConfig(cfg *config.Config, events func(ui.Event), parsers int) ui.Config {
	var via ui.Notify
	for _, w := range cfg.UI.Notify {
		via |= notifyWays[w]
	}
	return ui.Config{
		Prefix: cfg.UI.Prefix, FPS: cfg.UI.FPS, Scrollback: cfg.UI.Scrollback,
		Status: status.Config{ActivityWindow: cfg.UI.ActivityWindow, IdleAfter: cfg.UI.AttentionAfter},
		Rules:  cfg.Rules, Notify: via,
		Clipboard: cfg.UI.Clipboard != "off", ClipboardReadOnly: cfg.UI.Clipboard == "all", Bell: passes[cfg.UI.Bell], Notifications: passes[cfg.UI.Notifications],
		Events: events, Parsers: parsers, Record: recordConfig(cfg.Record), Keys: cfg.Keys,
	}
}

// recordConfig is [record] as the UI takes it; without a directory for
// recordings, starting one says so, and without a state directory the
// rings keep their past in memory.
func recordConfig(r config.RecordConfig) ui.RecordConfig {
	dir, _ := r.RecordDir() // "" makes each recording say why there is no directory
	rc := ui.RecordConfig{Retain: r.Retain, RetainBytes: int(r.RetainBytes), RetainTotal: int(r.RetainTotal), Dir: dir, IdleLimit: r.IdleLimit}
	if state, err := xdg.State(); r.Spill && err == nil {
		rc.SpillDir = state
	}
	return rc
}

// notifyWays are the ui.notify values the terminal serves ("command" is
// the notifier's).
var notifyWays = map[string]ui.Notify{"terminal": ui.NotifyTerminal, "bell": ui.NotifyBell}

// notifyEnv tells the notify command which pane needs the user, and why.
func notifyEnv(n ui.Notification) []string {
	return []string{"SANDMUX_PANE=" + n.Pane.ID, "SANDMUX_NAME=" + n.Pane.Name,
		"SANDMUX_STATE=" + n.Pane.State, "SANDMUX_REASON=" + n.Pane.Reason}
}

// paneEnv is what every pane's processes learn of their server, so that
// `sandmux ctl` run inside one talks to it about itself.
func paneEnv(socket string) func(id string) []string {
	return func(id string) []string {
		return []string{"SANDMUX_PANE=" + id, endpoint.EnvSocket + "=" + socket}
	}
}

func withEnv(specs []ui.PaneSpec, env func(string) []string) []ui.PaneSpec {
	for i := range specs {
		specs[i].Env = env
	}
	return specs
}

// passes maps the config's ui.bell and ui.notifications values.
var passes = map[string]ui.Pass{"any": ui.PassAny, "other": ui.PassOther, "none": ui.PassNone}
