// Package serve assembles a sandmux server from its config and runs it,
// as `sandmux serve` does: the provider table, the panes (the config's
// sandboxes with their workspace policies, or one local pane per
// command), the session Manager, the one ui.Model, the server and its
// control handler, the SSH listener, the notifier, and what dead servers
// of the same socket left (reaped first, A5).
//
//	config.Load ─► all.Table ─► session.Manager ─► ui.New (the one place) ─► server.New ─► NewCore ─► control handler
//	endpoint.Listen ─► control.Server.Serve ─► attach.Handoff ─► server.Attach     sshattach.Serve ─► server.Attach
//	SIGTERM, SIGINT ─► ui.QuitMsg (a second: kill and cut every client off)
//	quit ─► summary: Manager.Shutdown, Wait ─► each session's result, the warnings ─► every client's Exit
//
// It owns the wiring and the server's life in this process; what each
// part does is its package's. It reads no flags (main does).
package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
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
	"github.com/sandmux/sandmux/providers/all"
	"github.com/sandmux/sandmux/server"
	"github.com/sandmux/sandmux/session"
	"github.com/sandmux/sandmux/snapshot"
	"github.com/sandmux/sandmux/sshattach"
	"github.com/sandmux/sandmux/termsafe"
	"github.com/sandmux/sandmux/ui"
)

// Options are what a server is asked to run.
type Options struct {
	Name, Path string // the server's -L NAME or -S PATH (endpoint.Path)
	Config     string // the config file, "" for the search path
	Size       string // COLSxROWS the panes are laid out for until a client attaches
	Cmds       []string
	// Parsers is how many panes parse output at once (the parse gate).
	Parsers int
}

// Exit codes, as the command exits with them.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// Run runs a sandmux server: the config's sandboxes (or one local pane
// per command) for any number of clients, until a quit from one of them,
// from ctl, or SIGTERM or SIGINT has torn everything down. It returns
// the quit's status, as the command exits (2 for options it refuses),
// and what went wrong; the summary every client is shown goes to out
// too.
func Run(ctx context.Context, f Options, logger *log.Logger, out io.Writer) (int, error) {
	size, err := providers.ParseSize(f.Size)
	if err != nil {
		return exitUsage, err
	}
	socket, err := endpoint.Path(f.Name, f.Path)
	if err != nil {
		return exitUsage, err
	}
	// A server started in the background logs to its state file, which
	// every write keeps bounded (A17).
	logger.SetOutput(daemon.RotatingLog(logger.Writer(), daemon.LogName(socket)))
	cfg, err := config.Load(f.Config, all.Registry)
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
	sv := newServer(ctx, cfg, store, socket, instance, f, size, logger)
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
	return sv.serve(ctx, l, ssh, serveWeb, socket, logger, out)
}

// serve serves clients on l (and ssh, when not nil, and browsers through
// serveWeb) until the quit, then
// stops the listeners, waits for them and releases what the server held.
func (sv serverParts) serve(ctx context.Context, l *net.UnixListener, ssh *sshattach.Server, serveWeb func(context.Context), socket string, logger *log.Logger, out io.Writer) (int, error) {
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
			if err := ssh.Serve(serveCtx, sv.attacher); err != nil {
				logger.Print(err)
			}
		})
	}
	wg.Go(func() { serveWeb(serveCtx) })
	wg.Go(func() { sv.quiet.run(serveCtx) })
	stopSignals := quitOnSignals(sv.srv, logger.Print)
	logger.Printf("serving %s (pid %d)", socket, os.Getpid())
	// Started: a server no client attaches to (sandmux serve) lets go of
	// its start-up pages too.
	trimPages(logger)
	var code int
	runErr := sv.srv.Run(func(runErr error) attach.Exit {
		var exit attach.Exit
		exit, code = summary(ctx, sv.model, sv.mgr, sv.warned, runErr)
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
	attacher attach.Attacher // srv, letting go of start-up pages as each client attaches
	quiet    *quietTrim      // letting go of them again after each quiet spell
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
func newServer(ctx context.Context, cfg *config.Config, store, socket, instance string, f Options, size providers.Size, logger *log.Logger) serverParts {
	warned := &warnings{}
	table := all.Table(cfg.Providers.Local.Shell, warned.add, instance)
	env := paneEnv(socket)
	specs := withEnv(sandboxPanes(cfg, table, store), env)
	if len(f.Cmds) > 0 {
		specs = withEnv(adHocPanes(f.Cmds), env)
	}
	mgr := session.NewManager(table)
	hub := control.NewHub()
	uiCfg := uiConfig(cfg, server.Publish(hub), f.Parsers)
	uiCfg.Spawn = spawner(cfg, table, store, env)
	var notifier *notify.Runner
	if slices.Contains(cfg.UI.Notify, "command") && len(cfg.UI.NotifyCommand) > 0 {
		notifier = notify.New(ctx, cfg.UI.NotifyCommand, cfg.UI.NotifyTimeout, logger.Printf)
		uiCfg.OnNotify = func(n ui.Notification) { notifier.Run(notifyEnv(n)) }
	}
	model := ui.New(ctx, uiCfg, ui.FromManager(mgr), specs)
	quiet := newQuietTrim(quietAfter, func() { trimAfterWork(logger) }, func() { trimPages(logger) })
	srv := server.New(model, server.Options{Size: attach.Size{Width: int(size.Cols), Height: int(size.Rows)},
		HangupQuits: cfg.Server.OnHangup == "quit", Log: logger.Print, Filter: quiet.filter(panicFilter())})
	core := srv.NewCore(server.Specs{
		Run: func(name string, argv []string) ui.PaneSpec {
			return withEnv([]ui.PaneSpec{runPane(name, argv)}, env)[0]
		},
		Sandbox: sandboxSpec(cfg, table, store, env),
		Config:  ConfigFile(cfg),
	})
	wp := newWebParts(cfg)
	attacher := trimOnAttach{Attacher: srv, trim: func() { trimAfterWork(logger) }}
	ctl := control.NewServer(server.NewHandler(core, hub, wp.handlerOptions()...), hub, endpoint.CheckPeer,
		control.WithAttacher(attach.Handoff{Attacher: attacher, Log: func(err error) { logger.Print(err) }}),
		control.WithRefusals(func(err error) { logger.Print(err) }))
	return serverParts{mgr: mgr, model: model, srv: srv, attacher: attacher, quiet: quiet, ctl: ctl, warned: warned, notifier: notifier, hub: hub, web: wp}
}

// summary waits until no session is left and says how every client
// ends: the summary of each session, the warnings, and the status.
func summary(ctx context.Context, model *ui.Model, mgr *session.Manager, warned *warnings, runErr error) (attach.Exit, int) {
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
