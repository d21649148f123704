package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/sandmux/sandmux/attach"
	"github.com/sandmux/sandmux/config"
	"github.com/sandmux/sandmux/control"
	"github.com/sandmux/sandmux/daemon"
	"github.com/sandmux/sandmux/endpoint"
	"github.com/sandmux/sandmux/notify"
	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/server"
	"github.com/sandmux/sandmux/session"
	"github.com/sandmux/sandmux/snapshot"
	"github.com/sandmux/sandmux/sshattach"
	"github.com/sandmux/sandmux/status"
	"github.com/sandmux/sandmux/termsafe"
	"github.com/sandmux/sandmux/ui"
)

const serveUsage = "sandmux serve [-L NAME | -S PATH] [-c FILE] [--size COLSxROWS] ['CMD' ...]: run a server in the foreground, with no client (SIGTERM quits it)"

// serveFlags are what serve was asked to run.
type serveFlags struct {
	name, path, cfgPath, size string
	cmds                      []string
}

// runServe runs a sandmux server: the config's sandboxes (or one local
// pane per CMD) for any number of clients, until a quit from one of them,
// from ctl, or SIGTERM or SIGINT has torn everything down.
func runServe(ctx context.Context, args []string, s stdio) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(termsafe.NewWriter(s.err)) // flag prints a refused argument raw
	var f serveFlags
	fs.StringVar(&f.name, "L", "", "the server's `NAME` (default "+endpoint.DefaultName+")")
	fs.StringVar(&f.path, "S", "", "the server's socket `PATH`")
	fs.StringVar(&f.cfgPath, "c", "", "read the config from `FILE`")
	fs.StringVar(&f.size, "size", "80x24", "lay the panes out for a `COLSxROWS` terminal until a client attaches")
	fs.Usage = func() { fmt.Fprintln(s.err, "usage:", serveUsage); fs.PrintDefaults() }
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	f.cmds = fs.Args()
	logger := log.New(termsafe.NewWriter(s.err), "sandmux: ", log.LstdFlags)
	code, err := serve(ctx, f, logger, s.out)
	if err != nil {
		logger.Println(err)
	}
	return code
}

// serve runs the server until it quit, and returns the quit's status.
func serve(ctx context.Context, f serveFlags, logger *log.Logger, out io.Writer) (int, error) {
	size, err := providers.ParseSize(f.size)
	if err != nil {
		return exitUsage, err
	}
	socket, err := endpoint.Path(f.name, f.path)
	if err != nil {
		return exitUsage, err
	}
	// A server started in the background logs to its state file, which
	// every write keeps bounded (A17).
	logger.SetOutput(daemon.RotatingLog(logger.Writer(), daemon.LogName(socket)))
	cfg, err := config.Load(f.cfgPath, providerRegistry)
	if err != nil {
		return exitFailure, err
	}
	store, err := snapshot.DefaultRoot()
	if err != nil {
		return exitFailure, err
	}
	l, err := endpoint.Listen(socket)
	if err != nil {
		return exitFailure, err
	}
	// Listening, this is the only live server of socket: what its dead
	// predecessors left can be cleared before any pane starts.
	instance, claim := claimSocket(ctx, cfg, socket, logger)
	if claim != nil {
		defer func() {
			if err := claim.Release(); err != nil {
				logger.Print(err)
			}
		}()
	}
	sv := newServer(ctx, cfg, store, socket, instance, f.cmds, size, logger)
	ssh, err := sshServer(cfg, logger)
	if err != nil {
		_ = l.Close() // Best effort: nothing was served yet.
		return exitFailure, err
	}
	serveWeb, err := webServer(cfg, sv, logger)
	if err != nil {
		_ = l.Close() // Best effort: nothing was served yet.
		return exitFailure, err
	}

	serveCtx, stopServing := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := sv.ctl.Serve(serveCtx, l); err != nil {
			logger.Print(err)
		}
	})
	if ssh != nil {
		logger.Printf("serving SSH on %s", ssh.Addr())
		wg.Go(func() {
			if err := ssh.Serve(serveCtx, sv.srv); err != nil {
				logger.Print(err)
			}
		})
	}
	wg.Go(func() { serveWeb(serveCtx) })
	stopSignals := quitOnSignals(sv.srv, logger.Print)
	logger.Printf("serving %s (pid %d)", socket, os.Getpid())
	var code int
	runErr := sv.srv.Run(func(runErr error) attach.Exit {
		var exit attach.Exit
		exit, code = settle(ctx, sv.model, sv.mgr, sv.warned, runErr)
		fmt.Fprint(out, exit.Summary)
		return exit
	})
	stopSignals()
	stopServing()
	wg.Wait()
	sv.release(socket, logger)
	logger.Printf("quit (status %d)", code)
	return code, runErr
}

// serverParts are what a server is wired from.
type serverParts struct {
	mgr      *session.Manager
	model    *ui.Model
	srv      *server.Server
	ctl      *control.Server
	warned   *warnings
	notifier *notify.Runner // nil unless ui.notify has "command"
	hub      *control.Hub
	web      webParts
}

// release waits for the notify commands still running (each within
// notify_timeout) and removes the start lock, once nothing is served.
func (sv serverParts) release(socket string, logger *log.Logger) {
	if sv.notifier != nil {
		sv.notifier.Close()
	}
	if err := daemon.RemoveLock(socket); err != nil {
		logger.Print(err)
	}
}

// newServer wires the config's panes (or one per cmd), the Manager, the
// model, the server and its control handler; instance marks what the
// providers make that could outlive the server (contract A5).
func newServer(ctx context.Context, cfg *config.Config, store, socket, instance string, cmds []string, size providers.Size, logger *log.Logger) serverParts {
	warned := &warnings{}
	table := providerTableFor(cfg, warned.add, instance)
	env := paneEnv(socket)
	specs := withEnv(sandboxPanes(cfg, table, store), env)
	if len(cmds) > 0 {
		specs = withEnv(adHocPanes(cmds), env)
	}
	mgr := session.NewManager(table)
	hub := control.NewHub()
	uiCfg := uiConfig(cfg, server.Publish(hub))
	uiCfg.Spawn = spawner(cfg, table, store, env)
	var notifier *notify.Runner
	if slices.Contains(cfg.UI.Notify, "command") && len(cfg.UI.NotifyCommand) > 0 {
		notifier = notify.New(ctx, cfg.UI.NotifyCommand, cfg.UI.NotifyTimeout, logger.Printf)
		uiCfg.OnNotify = func(n ui.Notification) { notifier.Run(notifyEnv(n)) }
	}
	model := ui.New(ctx, uiCfg, ui.FromManager(mgr), specs)
	srv := server.New(model, server.Options{Size: attach.Size{Width: int(size.Cols), Height: int(size.Rows)},
		HangupQuits: cfg.Server.OnHangup == "quit", Log: logger.Print, Filter: panicFilter()})
	core := srv.NewCore(server.Specs{
		Run: func(name string, argv []string) ui.PaneSpec {
			return withEnv([]ui.PaneSpec{runPane(name, argv)}, env)[0]
		},
		Sandbox: sandboxSpec(cfg, table, store, env),
		Config:  configFile(cfg),
	})
	wp := newWebParts(cfg)
	ctl := control.NewServer(server.NewHandler(core, hub, wp.handlerOptions()...), hub, endpoint.CheckPeer,
		control.WithAttacher(attach.Handoff{Attacher: srv, Log: func(err error) { logger.Print(err) }}),
		control.WithRefusals(func(err error) { logger.Print(err) }))
	return serverParts{mgr: mgr, model: model, srv: srv, ctl: ctl, warned: warned, notifier: notifier, hub: hub, web: wp}
}

// settle waits until no session is left and says how every client ends:
// the summary of each session, the warnings, and the status.
func settle(ctx context.Context, model *ui.Model, mgr *session.Manager, warned *warnings, runErr error) (attach.Exit, int) {
	// Whatever ended the program (quit, error, panic), no session outlives
	// it: Shutdown is idempotent after a normal quit.
	shutErr := mgr.Shutdown(context.WithoutCancel(ctx))
	mgr.Wait()
	var b strings.Builder
	// Names, exit summaries, warnings and errors come from configs,
	// providers and remote hosts: all are escaped, one line each.
	for _, r := range model.Results() {
		termsafe.Fprintln(&b, r)
	}
	for _, w := range warned.list {
		termsafe.Fprintln(&b, "sandmux: warning:", w)
	}
	if err := model.RecordErr(); err != nil {
		// A recording cut short (a full disk, output dropped) fails no
		// session: it is said, not counted in the exit code.
		termsafe.Fprintln(&b, "sandmux: warning:", err)
	}
	code := exitOK
	// A close or kill that failed before the quit (its snapshot, most
	// often) fails the run as the quit's own teardown does (contract W7).
	if err := errors.Join(runErr, model.TeardownErr(), model.ShutdownErr(), shutErr); err != nil {
		termsafe.Fprintln(&b, "sandmux:", err)
		code = exitFailure
	}
	return attach.Exit{Code: code, Summary: b.String()}, code
}

// quitOnSignals turns SIGTERM and SIGINT into a confirmed quit (the next
// one escalates to killing everything and cutting every client off). SIGHUP is caught and dropped: a
// server has no terminal of its own to lose. (Not ignored: an ignored
// signal stays ignored in every pane's processes, which must die of the
// hangup their PTY's close sends.)
func quitOnSignals(srv *server.Server, log func(v ...any)) (stop func()) {
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		quits := 0
		for {
			select {
			case sig := <-ch:
				if sig == syscall.SIGHUP {
					continue
				}
				quits++
				srv.Send(ui.QuitMsg{Kill: quits > 1})
				if quits == 2 {
					// Everything at once: the panes are killed, and no
					// client is waited for, whatever it reads (A12).
					log("second signal: killing every pane and cutting off every client")
				}
				if quits > 1 {
					srv.Cut()
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

func uiConfig(cfg *config.Config, events func(ui.Event)) ui.Config {
	var via ui.Notify
	for _, w := range cfg.UI.Notify {
		via |= notifyWays[w]
	}
	return ui.Config{
		Prefix: cfg.UI.Prefix, FPS: cfg.UI.FPS, Scrollback: cfg.UI.Scrollback,
		Status: status.Config{ActivityWindow: cfg.UI.ActivityWindow, IdleAfter: cfg.UI.AttentionAfter},
		Rules:  cfg.Rules, Notify: via,
		Clipboard: cfg.UI.Clipboard != "off", ClipboardReadOnly: cfg.UI.Clipboard == "all", Bell: passes[cfg.UI.Bell], Notifications: passes[cfg.UI.Notifications],
		Events: events, Server: true, Parsers: parsers, Record: recordConfig(cfg.Record), Keys: cfg.Keys,
	}
}

// recordConfig is [record] as the UI takes it; without a directory for
// recordings, starting one says so.
func recordConfig(r config.RecordConfig) ui.RecordConfig {
	dir, _ := r.RecordDir() // "" makes each recording say why there is no directory
	return ui.RecordConfig{Retain: r.Retain, RetainBytes: int(r.RetainBytes), RetainTotal: int(r.RetainTotal), Dir: dir, IdleLimit: r.IdleLimit}
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

// sandboxSpec finds the config's sandbox of a name, for ctl start.
func sandboxSpec(cfg *config.Config, table providers.Table, store string, env func(string) []string) func(string) (ui.PaneSpec, error) {
	return func(name string) (ui.PaneSpec, error) {
		specs := sandboxPanes(cfg, table, store)
		for i, sb := range cfg.Sandboxes {
			if sb.Name == name {
				return withEnv(specs[i:i+1], env)[0], nil
			}
		}
		return ui.PaneSpec{}, fmt.Errorf("no sandbox %q in %s: ctl start takes one of the config's [[sandbox]] names", termsafe.String(name), cfg.Source)
	}
}

// sshServer listens for SSH clients when [server] ssh_listen asks for it.
// Key files are read relative to the config's directory.
func sshServer(cfg *config.Config, logger *log.Logger) (*sshattach.Server, error) {
	if cfg.Server.SSHListen == "" {
		return nil, nil
	}
	sc := sshattach.DefaultConfig()
	sc.Listen = cfg.Server.SSHListen
	sc.AuthorizedKeys = configRelative(cfg, cfg.Server.SSHAuthorizedKeys)
	sc.ReadOnlyKeys = configRelative(cfg, cfg.Server.SSHReadOnlyKeys)
	sc.Log = func(msg string) { logger.Print("ssh: ", msg) }
	srv, err := sshattach.New(sc)
	if err != nil {
		return nil, fmt.Errorf("serve SSH (%s): %w", cfg.Source, err)
	}
	return srv, nil
}

// configRelative is path as the config means it: ~ is the home
// directory, and a relative path is relative to the config's file.
func configRelative(cfg *config.Config, path string) string {
	switch {
	case path == "":
		return ""
	case path == "~" || strings.HasPrefix(path, "~/"):
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, strings.TrimPrefix(path[1:], "/"))
		}
	case !filepath.IsAbs(path) && cfg.Source != config.BuiltinSource:
		return filepath.Join(filepath.Dir(cfg.Source), path)
	}
	return path
}
