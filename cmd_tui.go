package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/x/term"

	"github.com/sandmux/sandmux/attach"
	"github.com/sandmux/sandmux/config"
	"github.com/sandmux/sandmux/control"
	"github.com/sandmux/sandmux/daemon"
	"github.com/sandmux/sandmux/endpoint"
	"github.com/sandmux/sandmux/providers/all"
	"github.com/sandmux/sandmux/serve"
	"github.com/sandmux/sandmux/termsafe"
)

const (
	tuiUsage    = "sandmux [-L NAME | -S PATH] [-c FILE] ['CMD' ...]: attach to server NAME, starting it on the config's sandboxes (or one local pane per CMD, run with sh -c) if none runs; with one running, each CMD opens as a new pane in it"
	attachUsage = "sandmux attach [-L NAME | -S PATH] [--read-only]: attach to a running server"
)

// tuiFlags are the flags of sandmux itself and of attach.
type tuiFlags struct {
	name, path, cfgPath string
	readOnly            bool
}

func (f *tuiFlags) register(fs *flag.FlagSet, withConfig bool) {
	fs.StringVar(&f.name, "L", "", "the server's `NAME` (default "+endpoint.DefaultName+")")
	fs.StringVar(&f.path, "S", "", "the server's socket `PATH`")
	if withConfig {
		fs.StringVar(&f.cfgPath, "c", "", "read the config from `FILE`")
	}
}

// runTUI attaches this terminal to a server, starting one in the
// background when none runs (it re-executes sandmux serve, which outlives
// this client). It returns when the client detaches or the server quit.
func runTUI(ctx context.Context, args []string, s stdio) int {
	fs := flag.NewFlagSet("sandmux", flag.ContinueOnError)
	fs.SetOutput(termsafe.NewWriter(s.err)) // flag prints a refused argument raw
	var f tuiFlags
	f.register(fs, true)
	fs.Usage = func() { fmt.Fprintln(s.err, "usage:", tuiUsage); fs.PrintDefaults() }
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if !hasTerminal(s) {
		// Said before anything starts or draws: without a terminal there
		// is nothing to attach, and escape codes would go to a pipe.
		fmt.Fprintln(s.err, noTerminalMessage)
		return exitFailure
	}
	socket, err := endpoint.Path(f.name, f.path)
	if err != nil {
		termsafe.Fprintln(s.err, "sandmux:", err)
		return exitUsage
	}
	if err := ensureServer(ctx, f, socket, fs.Args(), s); err != nil {
		termsafe.Fprintln(s.err, "sandmux:", err) // an error keeps its lines
		return exitFailure
	}
	return attachTerminal(ctx, socket, false, s)
}

// runAttach attaches this terminal to a running server.
func runAttach(ctx context.Context, args []string, s stdio) int {
	fs := flag.NewFlagSet("attach", flag.ContinueOnError)
	fs.SetOutput(termsafe.NewWriter(s.err))
	var f tuiFlags
	f.register(fs, false)
	fs.BoolVar(&f.readOnly, "read-only", false, "watch only: no key reaches a pane, nothing is closed or quit")
	fs.Usage = func() { fmt.Fprintln(s.err, "usage:", attachUsage); fs.PrintDefaults() }
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return exitUsage
	}
	if !hasTerminal(s) {
		fmt.Fprintln(s.err, noTerminalMessage)
		return exitFailure
	}
	socket, err := endpoint.Path(f.name, f.path)
	if err != nil {
		termsafe.Fprintln(s.err, "sandmux:", err)
		return exitUsage
	}
	return attachTerminal(ctx, socket, f.readOnly, s)
}

// ensureServer makes sure a server answers at socket: it starts one on
// the config (checked here first, so its errors reach this terminal) or
// on cmds; a server already running gets cmds as new panes instead.
func ensureServer(ctx context.Context, f tuiFlags, socket string, cmds []string, s stdio) error {
	cfg, err := config.Load(f.cfgPath, all.Registry)
	if err != nil {
		return err
	}
	if err := refuseTemporaryServer(socket); err != nil {
		return err
	}
	serveArgs := []string{"serve", "-S", socket}
	file := serve.ConfigFile(cfg)
	if file != "" {
		serveArgs = append(serveArgs, "-c", file)
	}
	if w, h, ok := terminalSize(s); ok {
		serveArgs = append(serveArgs, "--size", fmt.Sprintf("%dx%d", w, h))
	}
	serveArgs = append(append(serveArgs, "--"), cmds...)
	pid, err := daemon.Start(ctx, daemon.Options{Socket: socket, Name: daemon.LogName(socket), Args: serveArgs})
	if err != nil {
		return err
	}
	if pid != 0 {
		return nil // started on cmds
	}
	if file != "" {
		otherConfig(ctx, socket, f.name, file, s)
	}
	names := serve.AdHocNames(cmds)
	for i, c := range cmds {
		if err := ctlRun(ctx, socket, names[i], c); err != nil {
			return fmt.Errorf("open %q in the running server: %w", c, err)
		}
	}
	return nil
}

// errTemporary is why a go run build starts no server.
var errTemporary = errors.New("sandmux runs from a temporary build (go run deletes it when it exits), and a server started from it " +
	"would outlive its file: install it with go install . (or make install) and run sandmux from your PATH")

// refuseTemporaryServer refuses to start a server from a binary that
// go run made: it goes as soon as this client exits. A server already
// running is attached to as ever.
func refuseTemporaryServer(socket string) error {
	exe, err := os.Executable()
	if err != nil || !temporaryBuild(exe) {
		return nil // Best effort: daemon.Start reports a missing executable itself.
	}
	if conn, err := endpoint.Dial(socket); err == nil {
		_ = conn.Close() // Best effort: it answered, which is all we asked.
		return nil
	}
	return errTemporary
}

// temporaryBuild reports whether exe is where go run builds: WORK/b001/exe/NAME
// under a go-build directory.
func temporaryBuild(exe string) bool {
	dir := filepath.Dir(exe)
	return filepath.Base(dir) == "exe" && strings.HasPrefix(filepath.Base(filepath.Dir(filepath.Dir(dir))), "go-build")
}

// otherConfig says, in one line, when the server that runs already read
// another config than file: this one is not used, and -L starts a server
// of its own on it. A server that cannot say is left alone.
func otherConfig(ctx context.Context, socket, name, file string, s stdio) {
	conn, err := endpoint.Dial(socket)
	if err != nil {
		return
	}
	cl := control.NewClient(conn)
	defer cl.Close()
	rep, err := cl.Call(ctx, control.Request{Op: control.OpLs})
	if err != nil || rep.Config == file {
		return
	}
	if name == "" {
		name = endpoint.DefaultName
	}
	running := rep.Config
	if running == "" {
		running = "the built-in config"
	}
	termsafe.Fprintf(s.err, "sandmux: the server %s runs on %s, not %s: attaching to it; sandmux -L NAME -c %s starts a server of its own\n",
		name, running, file, file)
}

// ctlRun opens a local pane running cmd (a command line) in the server.
func ctlRun(ctx context.Context, socket, name, cmd string) error {
	conn, err := endpoint.Dial(socket)
	if err != nil {
		return err
	}
	cl := control.NewClient(conn)
	defer cl.Close()
	_, err = cl.Call(ctx, control.Request{Op: control.OpRun, Name: name, Argv: []string{cmd}})
	return err
}

// attachTerminal attaches this terminal to the server at socket until
// it detaches or the server quit, then prints what the server said.
func attachTerminal(ctx context.Context, socket string, readOnly bool, s stdio) int {
	conn, ok := dialServer(socket, "sandmux:", s)
	if !ok {
		return exitFailure
	}
	defer conn.Close()
	out, _ := s.outFile().(*os.File) // hasTerminal checked it is one
	hello := attach.Hello{ReadOnly: readOnly, Term: os.Getenv("TERM"), ColorTerm: os.Getenv("COLORTERM"),
		Who: fmt.Sprintf("local pid %d", os.Getpid())}
	if dir, err := os.Getwd(); err == nil {
		hello.Dir = dir // where the panes this client opens start (prefix c)
	}
	if w, h, ok := terminalSize(s); ok {
		hello.Size = attach.Size{Width: w, Height: h}
	}
	exit, err := attach.RunClient(ctx, conn, s.in, out, hello)
	if err != nil {
		termsafe.Fprintln(s.err, "sandmux:", err)
		return exitFailure
	}
	// The summary was escaped by the server, line by line.
	_, _ = io.WriteString(s.out, exit.Summary) // Best effort: nowhere else to report.
	if exit.Detached {
		fmt.Fprintf(s.out, "[detached from %s]\n", termsafe.String(socket))
	}
	return exit.Code
}

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
