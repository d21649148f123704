package ctl

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/sandmux/sandmux/control"
	"github.com/sandmux/sandmux/termsafe"
)

const tokenUsage = "token new [--read-only] [--ttl D] [--name N] | token ls | token revoke ID  (pages of the web client, [server] http_listen)"

// parseToken reads `token new|ls|revoke`.
func parseToken(fs *flag.FlagSet, args []string) (control.Request, error) {
	readOnly := fs.Bool("read-only", false, "new: a token whose pages watch and never type")
	ttl := durationFlag(fs, "ttl", "new: how long the token lives, `D` (default 24h)")
	name := fs.String("name", "", "new: a `NAME` for the token, shown in ls and the server's log")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return control.Request{}, err
	}
	if len(pos) == 0 {
		return control.Request{}, errors.New("give new, ls or revoke ID")
	}
	newOnly := *readOnly || *ttl != 0 || *name != ""
	switch {
	case pos[0] == "new" && len(pos) == 1:
		if *ttl < 0 {
			return control.Request{}, errors.New("--ttl cannot be negative")
		}
		return control.Request{Op: control.OpTokenNew, ReadOnly: *readOnly, TTL: control.Duration(*ttl), Name: *name}, nil
	case pos[0] == "ls" && len(pos) == 1 && !newOnly:
		return control.Request{Op: control.OpTokenLs}, nil
	case pos[0] == "revoke" && len(pos) == 2 && !newOnly:
		return control.Request{Op: control.OpTokenRevoke, Token: pos[1]}, nil
	}
	return control.Request{}, errors.New("give new [flags], ls or revoke ID (the flags are new's)")
}

// printTokens prints token new's URL, or the tokens as a table.
func printTokens(w io.Writer, op control.Op, rep control.Reply) {
	if op == control.OpTokenNew {
		termsafe.Fprintln(w, rep.URL)
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tACCESS\tEXPIRES\tPAGES")
	for _, ti := range rep.Tokens {
		access := "read-write"
		if ti.ReadOnly {
			access = "read-only"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\n", cell(ti.ID), cell(ti.Name), access, ti.Expires.Local().Format(time.DateTime), ti.Pages)
	}
	_ = tw.Flush() // Best effort: nowhere else to report.
}

func isTokenOp(op control.Op) bool {
	return op == control.OpTokenNew || op == control.OpTokenLs || op == control.OpTokenRevoke
}
