package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sandmux/sandmux/control"
	"github.com/sandmux/sandmux/endpoint"
	"github.com/sandmux/sandmux/termsafe"
)

// ctlUsage is ctl's line of help: every subcommand, from the table.
var ctlUsage = "sandmux ctl [-L NAME | -S PATH] [--json] " + strings.Join(slices.Sorted(maps.Keys(ctlCommands)), "|") + " ...: drive a running server"

// ctlCommand is one ctl subcommand: its usage, and how its arguments
// become a request.
type ctlCommand struct {
	usage string
	parse func(fs *flag.FlagSet, args []string) (control.Request, error)
}

// ctlCommands is the table of ctl subcommands.
var ctlCommands = map[string]ctlCommand{
	"ls":        {"ls", noArgs(control.OpLs)},
	"run":       {"run [--name N] -- CMD [ARGS...]", parseRun},
	"start":     {"start SANDBOX", parseStart},
	"close":     {"close S", oneSession(control.OpClose)},
	"kill":      {"kill S", oneSession(control.OpKill)},
	"restart":   {"restart S", oneSession(control.OpRestart)},
	"send":      {"send [--paste] S TEXT  (escapes: \\n \\r \\t \\e \\\\ \\xHH)", parseSend},
	"keys":      {"keys S KEY...  (key names as the help writes them: enter, ctrl+c, up)", parseKeys},
	"screen":    {"screen [--ansi] [--scrollback] S", parseScreen},
	"wait":      {"wait --state STATE|--phase PHASE [--timeout D] S", parseWait},
	"status":    {"status [S] STATE|clear [--reason TEXT] [--ttl D]  (S defaults to $SANDMUX_PANE: the pane it runs in)", parseStatus},
	"events":    {"events", noArgs(control.OpEvents)},
	"quit":      {"quit [--kill]", parseQuit},
	"record":    {"record start|stop|pause|resume|marker S [LABEL] [-o FILE] [--idle-limit D], or record start|stop --view [--client C] [-o FILE]", parseRecord},
	"save-last": {"save-last S [--duration D] -o FILE", parseSaveLast},
	"profile":   {"profile [cpu|heap|allocs|goroutine] [--seconds N] -o FILE", parseProfile},
	"token":     {tokenUsage, parseToken},
}

// runCtl sends one request to a running server and prints its answer.
// Exit codes: 0 done, 1 failed (the message says what to do), 2 usage.
func runCtl(ctx context.Context, args []string, s stdio) int {
	fs := flag.NewFlagSet("ctl", flag.ContinueOnError)
	fs.SetOutput(termsafe.NewWriter(s.err)) // flag prints a refused argument raw
	var name, path string
	var asJSON bool
	// The global flags are the subcommand's too: ctl ls --json is what
	// people type.
	global := func(fs *flag.FlagSet) {
		fs.StringVar(&name, "L", name, "the server's `NAME` (default: $"+endpoint.EnvSocket+" inside a pane, else "+endpoint.DefaultName+")")
		fs.StringVar(&path, "S", path, "the server's socket `PATH`")
		fs.BoolVar(&asJSON, "json", asJSON, "print the reply as JSON")
	}
	global(fs)
	fs.Usage = func() { ctlHelp(s.err, fs) }
	if err := fs.Parse(args); err != nil {
		return exitUsage // the flag package printed the error and the usage
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return exitUsage
	}
	sub, ok := ctlCommands[fs.Arg(0)]
	if !ok {
		termsafe.Fprintf(s.err, "sandmux ctl: unknown subcommand %q\n", fs.Arg(0))
		fs.Usage()
		return exitUsage
	}
	subFlags := flag.NewFlagSet("ctl "+fs.Arg(0), flag.ContinueOnError)
	subFlags.SetOutput(termsafe.NewWriter(s.err))
	global(subFlags)
	subFlags.Usage = func() { fmt.Fprintln(s.err, "usage: sandmux ctl", sub.usage); subFlags.PrintDefaults() }
	req, err := sub.parse(subFlags, fs.Args()[1:])
	if err != nil {
		// The flag package printed its own error and the usage already.
		if !errors.Is(err, errUsage) {
			termsafe.Fprintln(s.err, "sandmux ctl:", err)
			subFlags.Usage()
		}
		return exitUsage
	}
	socket, err := ctlSocket(name, path)
	if err != nil {
		termsafe.Fprintln(s.err, "sandmux ctl:", err)
		return exitUsage
	}
	return ctlCall(ctx, socket, req, asJSON, s)
}

func ctlHelp(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintln(w, "usage:", ctlUsage)
	fs.PrintDefaults()
	fmt.Fprintln(w, "subcommands (S is a pane number, name or id; flags may follow it, and -- ends them):")
	for _, name := range slices.Sorted(maps.Keys(ctlCommands)) {
		fmt.Fprintln(w, "  ", ctlCommands[name].usage)
	}
}

// ctlSocket is the server's socket: -S, else -L, else the server of the
// pane this runs in, else the default server.
func ctlSocket(name, path string) (string, error) {
	if path == "" && name == "" {
		if env := os.Getenv(endpoint.EnvSocket); env != "" {
			return env, nil
		}
	}
	return endpoint.Path(name, path)
}

// ctlCall sends req and prints the reply; events stream until the
// server ends them or the reader goes.
func ctlCall(ctx context.Context, socket string, req control.Request, asJSON bool, s stdio) int {
	conn, ok := dialServer(socket, "sandmux ctl:", s)
	if !ok {
		return exitFailure
	}
	cl := control.NewClient(conn)
	defer cl.Close()
	if req.Op == control.OpEvents {
		return ctlEvents(ctx, cl, s)
	}
	if req.Op == control.OpWait && req.Timeout > 0 {
		// The server bounds the wait too; this covers a server that
		// stops answering.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(req.Timeout)+5*time.Second)
		defer cancel()
	}
	rep, err := cl.Call(ctx, req)
	if err != nil {
		// The server's message may quote a session's name or a remote's
		// error.
		termsafe.Fprintln(s.err, "sandmux ctl:", err)
		return exitFailure
	}
	if asJSON {
		return printJSON(s.out, rep, req.Op)
	}
	printReply(s.out, req.Op, rep)
	return exitOK
}

func ctlEvents(ctx context.Context, cl *control.Client, s stdio) int {
	enc := json.NewEncoder(s.out)
	err := cl.Events(ctx, func(e control.Event) bool {
		return enc.Encode(e) == nil // a reader that went away ends the stream
	})
	if err != nil {
		termsafe.Fprintln(s.err, "sandmux ctl events:", err)
		return exitFailure
	}
	return exitOK
}

func printJSON(w io.Writer, rep control.Reply, op control.Op) int {
	var v any = rep
	switch {
	case op == control.OpLs:
		v = rep.Sessions
		if rep.Sessions == nil {
			v = []control.SessionInfo{}
		}
	case rep.Session != nil:
		v = rep.Session
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return exitFailure
	}
	_, _ = fmt.Fprintf(w, "%s\n", b) // Best effort: nowhere else to report.
	return exitOK
}

// printReply prints what a person wants from each op's reply.
func printReply(w io.Writer, op control.Op, rep control.Reply) {
	switch {
	case isTokenOp(op):
		printTokens(w, op, rep)
	case op == control.OpLs:
		printSessions(w, rep.Sessions)
	case op == control.OpScreen:
		_, _ = io.WriteString(w, rep.Screen) // the screen's own text, made by its emulator
	case op == control.OpWait && rep.Session != nil && rep.Session.ExitCode != nil:
		fmt.Fprintln(w, *rep.Session.ExitCode)
	case (op == control.OpRecord || op == control.OpSaveLast || op == control.OpProfile) && rep.File != "":
		termsafe.Fprintln(w, rep.File)
	case op == control.OpRun || op == control.OpStart:
		if rep.Session != nil {
			fmt.Fprintln(w, rep.Session.Number)
		}
	}
}

func printSessions(w io.Writer, sessions []control.SessionInfo) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tID\tNAME\tPROVIDER\tSTATE\tSINCE\tREASON\tPHASE\tEXIT\tSTARTED\tLAST OUTPUT\tBYTES\tPID\tCPU\tRSS\tRECORDING")
	for _, si := range sessions {
		rec := ""
		if si.Recording != nil {
			rec = filepath.Base(*si.Recording)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", si.Number, cell(si.ID), cell(si.Name), cell(si.Provider),
			cell(si.State), optTime(si.Since), cell(si.Reason), cell(si.Phase), optInt(si.ExitCode),
			optTime(&si.Started), // a pane that failed to start never started
			optTime(si.LastOutput), si.BytesOut, optInt(si.PID), optPercent(si.CPUPercent), optBytes(si.RSSBytes), cell(rec))
	}
	_ = tw.Flush() // Best effort: nowhere else to report.
}

// cell is a table cell from text a sandbox chose (a name, a reason):
// escaped, so it can neither reach the terminal raw nor break the columns.
func cell(s string) string {
	if s == "" {
		return "-"
	}
	return termsafe.String(s)
}

func optInt(p *int) string {
	if p == nil {
		return "-"
	}
	return strconv.Itoa(*p)
}

func optPercent(p *float64) string {
	if p == nil {
		return "-"
	}
	return strconv.FormatFloat(*p, 'f', 1, 64) + "%"
}

func optBytes(p *int64) string {
	if p == nil {
		return "-"
	}
	const unit = 1024
	n, suffix := float64(*p), []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for n >= unit && i < len(suffix)-1 {
		n, i = n/unit, i+1
	}
	return strconv.FormatFloat(n, 'f', min(i, 1), 64) + suffix[i]
}

func optTime(p *time.Time) string {
	if p == nil || p.IsZero() {
		return "-"
	}
	return p.Local().Format(time.TimeOnly)
}

// dialServer connects to the server at socket, or says why it cannot,
// after prefix, and what to do about a server that is not running.
func dialServer(socket, prefix string, s stdio) (*net.UnixConn, bool) {
	conn, err := endpoint.Dial(socket)
	switch {
	case errors.Is(err, endpoint.ErrNoServer):
		termsafe.Fprintln(s.err, prefix, err, "(start one with sandmux or sandmux serve; sandmux ls lists those running)")
	case err != nil:
		termsafe.Fprintln(s.err, prefix, err)
	}
	return conn, err == nil
}
