package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"runtime/metrics"

	"github.com/charmbracelet/x/term"

	"github.com/sandmux/sandmux/attach"
	"github.com/sandmux/sandmux/endpoint"
	"github.com/sandmux/sandmux/pagetrim"
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
	o := serve.Client{Config: f.cfgPath, Name: f.name, Socket: socket, Cmds: fs.Args()}
	if w, h, ok := terminalSize(s); ok {
		o.Size = fmt.Sprintf("%dx%d", w, h)
	}
	if err := serve.Ensure(ctx, o, s.err); err != nil {
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
	exit, err := attach.RunClient(ctx, conn, s.in, out, hello, attach.WithSettled(settleClient))
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

// settleClient lets go of what an attached client no longer needs: the
// heap its start left (it allocates too little after to ever collect
// it) and the binary's pages it touched on the way (package pagetrim).
// It waits from here on: its input and output are the server's, or
// pass through in frames. Best effort: failing, it holds them.
func settleClient(handedOver bool) {
	debug.FreeOSMemory()
	if handedOver {
		collectOnlyWhenGrown()
	}
	_, _ = pagetrim.Drop()
}

// clientGrowth is how much more memory a client that handed its
// terminal over may take before it collects: it allocates next to
// nothing (a size change's frame), so this is a bound that is never
// reached, not a headroom it fills.
const clientGrowth = 16 << 20

// collectOnlyWhenGrown has the runtime collect only once the process
// holds at least clientGrowth more than now, not on its own two-minute
// timer: a waiting client's timed collection walked its stacks and the
// binary's tables and brought back the pages settleClient let go of,
// 4.6 MB of resident memory becoming 7.6, for ever. A client that
// relays its terminal's frames allocates for them, and keeps Go's
// pacing.
func collectOnlyWhenGrown() {
	total := []metrics.Sample{{Name: "/memory/classes/total:bytes"}}
	metrics.Read(total)
	debug.SetMemoryLimit(int64(total[0].Value.Uint64()) + clientGrowth)
	debug.SetGCPercent(-1)
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
