package server

import (
	"context"
	"errors"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/control"
	"github.com/sandmux/sandmux/session/vt"
	"github.com/sandmux/sandmux/status"
	"github.com/sandmux/sandmux/ui"
)

// Specs make the panes that control requests open.
type Specs struct {
	// Run is a local pane running argv, named name.
	Run func(name string, argv []string) ui.PaneSpec
	// Sandbox is the config's sandbox of that name.
	Sandbox func(name string) (ui.PaneSpec, error)
	// Config is the config file the server read, "" for the built-in:
	// a client started on another says so.
	Config string
}

// NewCore is the Core of a control handler over this server's panes.
func (s *Server) NewCore(specs Specs) Core { return &serverCore{s: s, specs: specs} }

// serverCore answers a control handler by running each request on the
// model's loop.
type serverCore struct {
	s     *Server
	specs Specs
}

var errServerGone = errors.New("the server is quitting: start a new one with sandmux")

// do runs fn on the model's loop; errServerGone once the model ended.
func (c *serverCore) do(fn func(*ui.Model) tea.Cmd) error {
	if !c.s.Do(context.Background(), fn) {
		return errServerGone
	}
	return nil
}

func (c *serverCore) Clients() int   { return c.s.Clients() }
func (c *serverCore) Config() string { return c.specs.Config }

func (c *serverCore) Sessions() []control.SessionInfo {
	var out []control.SessionInfo
	_ = c.do(func(m *ui.Model) tea.Cmd { // Best effort: a server gone has no sessions.
		for _, p := range m.Panes() {
			out = append(out, sessionInfo(p))
		}
		return nil
	})
	return out
}

func (c *serverCore) List() []control.SessionInfo {
	var sample tea.Cmd
	if c.do(func(m *ui.Model) tea.Cmd { sample = m.SampleUsageNow(); return nil }) != nil {
		return nil
	}
	if sample != nil {
		// It reads files under /proc or a cgroup: off the loop, and
		// only its message on it. Best effort: a server gone meanwhile
		// lists no sessions.
		msg := sample()
		_ = c.do(func(m *ui.Model) tea.Cmd {
			cmd, _ := m.Shared.Update(msg)
			return cmd
		})
	}
	return c.Sessions()
}

// sessionInfo is a pane as the protocol writes it.
func sessionInfo(p ui.PaneInfo) control.SessionInfo {
	si := control.SessionInfo{Number: p.Number, ID: p.ID, Name: p.Name, Provider: p.Provider, State: p.State,
		Reason: p.Reason, Phase: p.Phase, ExitCode: p.ExitCode, Started: p.Started}
	si.BytesOut, si.MemBytes = p.BytesOut, p.MemBytes
	if !p.Since.IsZero() {
		t := p.Since
		si.Since = &t
	}
	if p.HasUsage {
		cpu, rss := p.CPUPercent, p.RSSBytes
		si.CPUPercent, si.RSSBytes = &cpu, &rss
	}
	if p.PID != 0 {
		pid := p.PID
		si.PID = &pid
	}
	if !p.LastOutput.IsZero() {
		t := p.LastOutput
		si.LastOutput = &t
	}
	if p.Recording != "" {
		f := p.Recording
		si.Recording = &f
	}
	return si
}

// open adds the pane and waits until its start ended. A start that
// failed leaves no pane: its error is the answer, and a script has
// nothing to clean up.
func (c *serverCore) open(ctx context.Context, spec ui.PaneSpec) (control.SessionInfo, error) {
	started := make(chan error, 1)
	spec.Started = func(err error) { started <- err }
	var info ui.PaneInfo
	var refused error
	if err := c.do(func(m *ui.Model) tea.Cmd {
		var cmd tea.Cmd
		info, cmd, refused = m.Open(spec)
		return cmd
	}); err != nil {
		return control.SessionInfo{}, err
	}
	if refused != nil {
		return control.SessionInfo{}, refused
	}
	select {
	case err := <-started:
		if err != nil {
			_ = c.Close(context.WithoutCancel(ctx), info.ID) // Best effort: the start's error is the news.
			return control.SessionInfo{}, err
		}
	case <-ctx.Done():
		return control.SessionInfo{}, fmt.Errorf("stopped waiting for pane %d to start (it goes on): %w", info.Number, context.Cause(ctx))
	case <-c.s.Done():
		return control.SessionInfo{}, errServerGone
	}
	var now *ui.PaneInfo
	_ = c.do(func(m *ui.Model) tea.Cmd { // Best effort: a server gone answers with the pane as opened.
		for _, p := range m.Panes() {
			if p.ID == info.ID {
				now = &p
			}
		}
		return nil
	})
	if now != nil {
		info = *now
	}
	return sessionInfo(info), nil
}

func (c *serverCore) Run(ctx context.Context, name string, argv []string) (control.SessionInfo, error) {
	if len(argv) == 0 {
		return control.SessionInfo{}, errors.New("run needs a command: sandmux ctl run -- CMD [ARGS...]")
	}
	return c.open(ctx, c.specs.Run(name, argv))
}

func (c *serverCore) Start(ctx context.Context, sandbox string) (control.SessionInfo, error) {
	if c.specs.Sandbox == nil {
		return control.SessionInfo{}, errors.New("this server has no config's sandboxes: use ctl run")
	}
	spec, err := c.specs.Sandbox(sandbox)
	if err != nil {
		return control.SessionInfo{}, err
	}
	return c.open(ctx, spec)
}

func (c *serverCore) Close(ctx context.Context, id string) error { return c.teardown(ctx, id, false) }
func (c *serverCore) Kill(ctx context.Context, id string) error  { return c.teardown(ctx, id, true) }

// teardown closes or kills the pane and waits until it ended, ctx ended
// (the teardown goes on) or the server quit (it ended the pane too).
func (c *serverCore) teardown(ctx context.Context, id string, kill bool) error {
	ended := make(chan error, 1)
	var refused error
	err := c.do(func(m *ui.Model) tea.Cmd {
		var cmd tea.Cmd
		cmd, refused = m.ClosePane(id, kill, func(err error) { ended <- err })
		return cmd
	})
	if err := errors.Join(err, refused); err != nil {
		return err
	}
	select {
	case err := <-ended:
		return err
	case <-ctx.Done():
		return fmt.Errorf("stopped waiting (the teardown goes on): %w", context.Cause(ctx))
	case <-c.s.Done():
		return nil
	}
}

func (c *serverCore) Restart(id string) error {
	var refused error
	err := c.do(func(m *ui.Model) tea.Cmd {
		var cmd tea.Cmd
		cmd, refused = m.RestartPane(id)
		return cmd
	})
	return errors.Join(err, refused)
}

func (c *serverCore) Input(id string, encode func(vt.Modes) []byte) error {
	var refused error
	err := c.do(func(m *ui.Model) tea.Cmd { refused = m.Input(id, encode); return nil })
	return errors.Join(err, refused)
}

func (c *serverCore) Report(id string, st status.State, reason string, ttl time.Duration) (control.SessionInfo, error) {
	var info ui.PaneInfo
	var refused error
	err := c.do(func(m *ui.Model) tea.Cmd { info, refused = m.Report(id, st, reason, ttl); return nil })
	return sessionInfo(info), errors.Join(err, refused)
}

func (c *serverCore) Screen(id string, ansi, scrollback bool) (string, error) {
	var text string
	var refused error
	err := c.do(func(m *ui.Model) tea.Cmd { text, refused = m.Screen(id, ansi, scrollback); return nil })
	return text, errors.Join(err, refused)
}

func (c *serverCore) Quit(kill bool) error {
	select {
	case <-c.s.Done():
		return errServerGone
	default:
	}
	c.s.Send(ui.QuitMsg{Kill: kill})
	return nil
}

// Publish is a ui.Config.Events hook that passes the model's events on to
// hub, for ctl events and ctl wait.
func Publish(hub *control.Hub) func(ui.Event) {
	return func(e ui.Event) {
		ce := control.Event{Kind: control.EventKind(e.Kind), Time: e.Time, Detail: e.Detail}
		if e.Pane != nil {
			si := sessionInfo(*e.Pane)
			if e.Kind == ui.EventClosed {
				// The pane is described as it was while it went (closing);
				// the event says it is gone, and so does its state.
				si.State = stateClosed
			}
			ce.Session = &si
		}
		if e.Kind == ui.EventAttached || e.Kind == ui.EventDetached {
			ce.Detail = fmt.Sprintf("client %d", e.Client)
		}
		hub.Publish(ce)
	}
}
