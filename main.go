// Command sandmux supervises many sandbox PTYs at once: one pane per PTY,
// from any provider.
//
// Wiring, once:
//
//	sandmux (client) ─► serve.Ensure ─► daemon.Start ─► sandmux serve (a session of its own): serve.Run
//	      │                                   │
//	      └─► attach wire ─► endpoint socket ─┤◄─ sshattach (ssh -tt) ◄─ remote client
//	                                          │◄─ control (sandmux ctl)
//	                                          ▼
//	          server ─► ui.Model ─► session.Manager ─► providers (local, ssh, docker, exec)
//	                                       └─► Collector ─► consumers (screen, recorder)
//	without a server: record, screen (package headless), play (package play), check, snapshot
//	sandmux ctl: package ctl
//
// main owns the command line: one file per command, its flags, what it
// prints and its exit code. The logic lives in the packages, the server's
// assembly in package serve.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"syscall"

	"github.com/sandmux/sandmux/gcpace"
)

// command is one subcommand: its name, one line of help, and what runs it.
type command struct {
	name  string
	usage string
	run   func(ctx context.Context, args []string, stdio stdio) int
}

// stdio is the standard streams a command uses, so tests can run commands
// in-process.
type stdio struct {
	in       *os.File
	out, err io.Writer
}

// outFile is the terminal the TUI draws on: standard output when it is a
// file, else the controlling terminal's.
func (s stdio) outFile() io.Writer {
	if f, ok := s.out.(*os.File); ok {
		return f
	}
	return os.Stdout
}

// Exit codes shared by every command.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

func commands() []command {
	return []command{
		{"record", recordUsage, runRecord},
		{"screen", screenUsage, runScreen},
		{"play", playUsage, runPlay},
		{"check", checkUsage, runCheck},
		{"snapshot", "sandmux snapshot save|restore|ls|verify ...", runSnapshot},
		{"attach", attachUsage, runAttach},
		{"serve", serveUsage, runServe},
		{"ls", lsUsage, runLs},
		{"ctl", ctlUsage, runCtl},
		{"help", "sandmux help (or -h, --help): this list", runHelp},
		{"version", "sandmux version (or --version, -v): the version and source revision", runVersion},
		{"", tuiUsage, runTUI},
	}
}

// aliases are the conventional flag spellings of help and version, which
// every CLI user tries first; they must not reach the TUI's flag parser.
var aliases = map[string]string{
	"-h": "help", "-help": "help", "--help": "help",
	"-version": "version", "--version": "version", "-V": "version", "-v": "version",
}

// softMemoryLimit is where sandmux trades throughput for memory: far above
// what a few panes use, so their throughput is untouched.
const softMemoryLimit = 256 << 20

// parsers is how many panes parse output at once: the processors Go
// found at start.
var parsers int

func main() {
	// The emulator no longer allocates for every character it parses
	// (third_party/vt10x), so collecting often costs little, where GOGC
	// 400 let 48 busy panes' 23 MB of live heap sit in 146 MB of memory.
	// The server's heap may grow 4 MiB past what each collection left
	// live, however large that is (package gcpace): what the panes
	// allocate a second does not grow with the heap. A quarter of the
	// heap as headroom, up to 12 MiB, held 16 busy panes' 3 to 4 MB of
	// live heap in 1 MiB more, collected every half second: 4 MiB took
	// a tenth less CPU at 16 × vim and 48 × htop for 2 to 3 MB more
	// memory (see docs/PERFORMANCE.md). With the rings in their
	// files, 48 busy panes hold some 9 MB of heap. A burst of
	// collections (a flood) widens that headroom up to four times for as
	// long as it lasts, and a heap not measured yet (a server starting
	// up) is paced as Go paces it by default. Every other command (the
	// attach client above all) allocates less than Go's 4 MiB minimum
	// heap and, at Go's default, never collects, which holds less memory
	// than the collector's own structures would (GOGC, when set, wins).
	if os.Getenv("GOGC") == "" {
		if len(os.Args) > 1 && os.Args[1] == "serve" {
			gcpace.Start(4 << 20)
		} else {
			debug.SetGCPercent(100)
		}
	}
	// With a hundred panes the live heap is large too: past this soft
	// limit the collector runs as often as it must instead (GOMEMLIMIT,
	// when set, wins).
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(softMemoryLimit)
	}
	// The panes parse on one processor fewer than there are, one at the
	// least (the parse gate): a flood then leaves the rest of the machine
	// to what a key's echo needs, the program echoing it above all, and
	// to the UI. Beside four panes flooding a 2-core machine, a key
	// echoed in a median 2.4 ms where it took 8-11 ms with both cores
	// parsing, and attaching drew its first frame in 60-65 ms against
	// 84-94, while the four floods took as long (1.99 s against 1.91,
	// 158 CPU ticks against 155: the reads, the recording and the
	// programs writing, not the parsing, were what the second core did).
	// Two more Go processors than cores let the UI, the clients' input
	// and their frames run beside the parsers at once, scheduled by the
	// kernel, instead of waiting out Go's time slice behind them
	// (GOMAXPROCS, when set, wins).
	cores := runtime.GOMAXPROCS(0)
	parsers = max(1, cores-1)
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(cores + 2)
	}
	os.Exit(run(os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr}))
}

// run dispatches to a subcommand. The context is cancelled by nothing here:
// commands that must react to signals install their own handling, because
// each gives signals a different meaning (record passes them on to the
// child's teardown, the TUI treats them as a confirmed quit).
func run(args []string, s stdio) int {
	ctx := context.Background()
	if len(args) > 0 {
		if name, ok := aliases[args[0]]; ok {
			args = append([]string{name}, args[1:]...)
		}
		for _, c := range commands() {
			if c.name != "" && c.name == args[0] {
				return c.run(ctx, args[1:], s)
			}
		}
	}
	return runTUI(ctx, args, s)
}

func runHelp(_ context.Context, _ []string, s stdio) int {
	fmt.Fprintln(s.out, "sandmux supervises many sandbox PTYs at once.")
	fmt.Fprintln(s.out)
	fmt.Fprintln(s.out, "usage:")
	for _, c := range commands() {
		fmt.Fprintf(s.out, "  %s\n", c.usage)
	}
	fmt.Fprintln(s.out)
	fmt.Fprintln(s.out, "Each command takes -h for its own flags. In the TUI, ctrl+b ? lists the keys.")
	return exitOK
}

func runVersion(_ context.Context, _ []string, s stdio) int {
	fmt.Fprintln(s.out, "sandmux", versionString(debug.ReadBuildInfo()))
	return exitOK
}

// versionString is the module version and the VCS revision the binary was
// built from, as the Go toolchain recorded them (a `go run` or a build from
// a dirty tree says so).
func versionString(info *debug.BuildInfo, ok bool) string {
	if !ok {
		return "(unknown version: built without module information)"
	}
	version := info.Main.Version
	if version == "" {
		version = "(devel)"
	}
	var rev, when, dirty string
	for _, st := range info.Settings {
		switch st.Key {
		case "vcs.revision":
			rev = st.Value
		case "vcs.time":
			when = st.Value
		case "vcs.modified":
			if st.Value == "true" {
				dirty = ", modified"
			}
		}
	}
	out := version
	if rev != "" {
		out += fmt.Sprintf(" (revision %.12s, %s%s)", rev, when, dirty)
	}
	return out + " " + info.GoVersion
}

// signalContext returns a context cancelled, with a cause naming it, by the
// first SIGINT, SIGTERM or SIGHUP; caught reports that signal (nil if none
// came). stop stops listening and waits for the listener.
func signalContext(parent context.Context) (ctx context.Context, caught func() os.Signal, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	var got atomic.Value
	done := make(chan struct{})
	go func() {
		defer close(done)
		select {
		case sig := <-ch:
			got.Store(sig)
			cancel(fmt.Errorf("received %v", sig))
		case <-ctx.Done():
		}
	}()
	caught = func() os.Signal {
		sig, _ := got.Load().(os.Signal)
		return sig
	}
	stop = func() {
		signal.Stop(ch)
		cancel(context.Canceled)
		<-done
	}
	return ctx, caught, stop
}
