package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"

	"github.com/sandmux/sandmux/config"
	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/providers/local"
	"github.com/sandmux/sandmux/session"
	"github.com/sandmux/sandmux/snapshot"
	"github.com/sandmux/sandmux/termsafe"
	"github.com/sandmux/sandmux/ui"
	"github.com/sandmux/sandmux/workspace"
)

const tuiUsage = "sandmux [-c FILE] ['CMD' ...]: open the config's sandboxes, or one local pane per CMD (run with sh -c)"

// runTUI runs the terminal UI on the config's sandboxes, or on ad-hoc
// local panes when commands are given. It returns only once every session
// has been torn down, then prints one line per session.
func runTUI(ctx context.Context, args []string, s stdio) int {
	fs := flag.NewFlagSet("sandmux", flag.ContinueOnError)
	fs.SetOutput(termsafe.NewWriter(s.err)) // flag prints a refused argument raw
	cfgPath := fs.String("c", "", "read the config from `FILE`")
	fs.Usage = func() { fmt.Fprintln(s.err, "usage:", tuiUsage); fs.PrintDefaults() }
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if !hasTerminal(s) {
		// Said before anything starts or draws: without a terminal Bubble
		// Tea would fail deep inside with an epoll error, after the
		// alternate screen's escape codes had gone to the pipe.
		fmt.Fprintln(s.err, noTerminalMessage)
		return exitFailure
	}
	cfg, err := config.Load(*cfgPath, providerRegistry)
	if err != nil {
		termsafe.Fprintln(s.err, "sandmux:", err)
		return exitFailure
	}
	store, err := snapshot.DefaultRoot()
	if err != nil {
		termsafe.Fprintln(s.err, "sandmux:", err)
		return exitFailure
	}
	var warned warnings
	table := providerTable(cfg, warned.add)
	specs := sandboxPanes(cfg, table, store)
	if fs.NArg() > 0 {
		specs = adHocPanes(fs.Args())
	}
	mgr := session.NewManager(table)
	model := ui.New(ui.Config{
		Prefix: cfg.UI.Prefix, FPS: cfg.UI.FPS, Scrollback: cfg.UI.Scrollback, AttentionAfter: cfg.UI.AttentionAfter,
		Clipboard: cfg.UI.Clipboard == "write", Bell: passes[cfg.UI.Bell], Notifications: passes[cfg.UI.Notifications],
	}, ui.FromManager(mgr), specs)

	// sandmux draws through its own Terminal (see ui.Terminal for why);
	// Bubble Tea reads and decodes the input. Its renderer's ticker still
	// runs, at the lowest rate, with nothing to draw.
	tty, err := ui.OpenTerminal(s.in, s.outFile())
	if err != nil {
		termsafe.Fprintln(s.err, "sandmux:", err)
		return exitFailure
	}
	model.UseTerminal(tty)
	opts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithoutSignalHandler(), tea.WithoutRenderer(), tea.WithFPS(1),
		tea.WithInput(s.in), tea.WithOutput(s.outFile())}
	if w, h, ok := terminalSize(s); ok {
		opts = append(opts, tea.WithWindowSize(w, h))
	}
	if key := os.Getenv("SANDMUX_TEST_PANIC_KEY"); key != "" {
		// For the test that a panic still restores the terminal and tears
		// every session down: there is no other way to make sandmux panic.
		opts = append(opts, tea.WithFilter(func(_ tea.Model, msg tea.Msg) tea.Msg {
			if k, ok := msg.(tea.KeyPressMsg); ok && k.String() == key {
				panic("test panic requested by SANDMUX_TEST_PANIC_KEY")
			}
			return msg
		}))
	}
	p := tea.NewProgram(model, opts...)
	stopSignals := forwardSignals(p, s)
	_, runErr := p.Run()
	stopSignals()
	if err := tty.Close(); err != nil && runErr == nil {
		runErr = fmt.Errorf("restore the terminal: %w", err)
	}
	// Whatever ended the program (quit, error, panic), no session outlives
	// it: Shutdown is idempotent after a normal quit.
	shutErr := mgr.Shutdown(context.WithoutCancel(ctx))
	mgr.Wait()

	// Names, exit summaries, warnings and errors come from configs,
	// providers and remote hosts: all are printed escaped, one line each.
	for _, r := range model.Results() {
		termsafe.Fprintln(s.out, r)
	}
	for _, w := range warned.list {
		termsafe.Fprintln(s.err, "sandmux: warning:", w)
	}
	if runErr != nil {
		termsafe.Fprintln(s.err, "sandmux:", runErr)
		return exitFailure
	}
	// A close or kill that failed before the quit (its snapshot, most
	// often) fails the run as the quit's own teardown does (contract W7).
	if err := errors.Join(model.TeardownErr(), model.ShutdownErr(), shutErr); err != nil {
		termsafe.Fprintln(s.err, "sandmux:", err)
		return exitFailure
	}
	return exitOK
}

// passes maps the config's ui.bell and ui.notifications values.
var passes = map[string]ui.Pass{"any": ui.PassAny, "other": ui.PassOther, "none": ui.PassNone}

const noTerminalMessage = `sandmux: the TUI needs a terminal, and standard input or output is not one.
To run a command without one, use:
  sandmux screen -- CMD [ARGS...]               print its final screen
  sandmux record -o FILE.cast -- CMD [ARGS...]  record it as asciicast v2`

// hasTerminal reports whether both the input and the output the TUI would
// use are terminals.
func hasTerminal(s stdio) bool {
	f, isFile := s.outFile().(*os.File)
	return s.in != nil && term.IsTerminal(s.in.Fd()) && isFile && term.IsTerminal(f.Fd())
}

// terminalSize is the size of the terminal sandmux draws on.
func terminalSize(s stdio) (w, h int, ok bool) {
	f, isFile := s.outFile().(*os.File)
	if !isFile || !term.IsTerminal(f.Fd()) {
		return 0, 0, false
	}
	w, h, err := term.GetSize(f.Fd())
	return w, h, err == nil && w > 0 && h > 0
}

// forwardSignals turns SIGTERM, SIGHUP and SIGINT into quit requests (the
// first is a confirmed quit, the next escalate to killing everything) and
// SIGWINCH into the new size: Bubble Tea, not drawing, does not watch it.
func forwardSignals(p *tea.Program, s stdio) (stop func()) {
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT, syscall.SIGWINCH)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case sig := <-ch:
				if sig != syscall.SIGWINCH {
					p.Send(ui.QuitMsg{})
				} else if w, h, ok := terminalSize(s); ok {
					p.Send(tea.WindowSizeMsg{Width: w, Height: h})
				}
			case <-done:
				return
			}
		}
	})
	return func() {
		signal.Stop(ch)
		close(done)
		wg.Wait()
	}
}

// warnings collects provider warnings while the TUI owns the terminal,
// to be printed once it has exited.
type warnings struct {
	mu   sync.Mutex
	seen map[string]bool
	list []string
}

func (w *warnings) add(msg string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.seen[msg] {
		if w.seen == nil {
			w.seen = map[string]bool{}
		}
		w.seen[msg] = true
		w.list = append(w.list, msg)
	}
}

// sandboxPanes turns the config's sandboxes into panes, with workspace
// restore before start and snapshots after teardown as their policies say.
func sandboxPanes(cfg *config.Config, table providers.Table, store string) []ui.PaneSpec {
	ws := workspace.Policy{Registry: providerRegistry, Store: store, Providers: table}
	specs := make([]ui.PaneSpec, 0, len(cfg.Sandboxes))
	for _, sb := range cfg.Sandboxes {
		opts := session.Options{StopGrace: sb.StopGrace, KillGrace: sb.KillGrace, DrainGrace: sb.DrainGrace, AfterTeardown: ws.Hook(sb)}
		specs = append(specs, ui.PaneSpec{
			Name:     sb.Name,
			Provider: sb.Provider,
			Spec:     sb.Spec(),
			Options:  opts,
			Prepare:  ws.Prepare(sb),
		})
	}
	return specs
}

// adHocPanes opens one local pane per command, in the current directory.
func adHocPanes(cmds []string) []ui.PaneSpec {
	dir, _ := os.Getwd() // Best effort: "" means the child inherits ours.
	specs := make([]ui.PaneSpec, 0, len(cmds))
	for _, c := range cmds {
		specs = append(specs, ui.PaneSpec{
			Name:     c,
			Provider: local.Descriptor.Name,
			Spec:     providers.Spec{Name: c, Command: []string{"sh", "-c", c}, Dir: dir},
		})
	}
	return specs
}
