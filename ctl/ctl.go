// Package ctl is the client side of `sandmux ctl`: each subcommand's
// arguments as a control request (a table, Commands), the call over a
// connection to a server, and the reply printed for a person or as JSON.
//
// It owns that translation alone: the protocol is package control's,
// finding and dialling the server is main's (with package endpoint), and
// what a request does is the server's.
package ctl

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/sandmux/sandmux/control"
	"github.com/sandmux/sandmux/termsafe"
)

// Command is one ctl subcommand: its usage, and how its arguments
// become a request.
type Command struct {
	Usage string
	Parse func(fs *flag.FlagSet, args []string) (control.Request, error)
}

// Commands is the table of ctl subcommands, by name.
var Commands = map[string]Command{
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
	"profile":   {"profile [cpu|heap|allocs|goroutine|trace] [--seconds N] -o FILE", parseProfile},
	"token":     {tokenUsage, parseToken},
}

// Call sends req over conn, a connection to a server, and prints the
// reply on out, as JSON with asJSON; events stream until the server ends
// them or out's reader goes. The error says what failed, and may quote
// a session's name or a remote's error: print it through termsafe.
func Call(ctx context.Context, conn net.Conn, req control.Request, asJSON bool, out io.Writer) error {
	cl := control.NewClient(conn)
	defer cl.Close()
	if req.Op == control.OpEvents {
		return events(ctx, cl, out)
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
		return err
	}
	if asJSON {
		return printJSON(out, rep, req.Op)
	}
	printReply(out, req.Op, rep)
	return nil
}

func events(ctx context.Context, cl *control.Client, out io.Writer) error {
	enc := json.NewEncoder(out)
	err := cl.Events(ctx, func(e control.Event) bool {
		return enc.Encode(e) == nil // a reader that went away ends the stream
	})
	if err != nil {
		return fmt.Errorf("events: %w", err)
	}
	return nil
}

func printJSON(w io.Writer, rep control.Reply, op control.Op) error {
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
		return fmt.Errorf("write the reply as JSON: %w", err)
	}
	_, _ = fmt.Fprintf(w, "%s\n", b) // Best effort: nowhere else to report.
	return nil
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
