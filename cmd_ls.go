package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/sandmux/sandmux/control"
	"github.com/sandmux/sandmux/daemon"
	"github.com/sandmux/sandmux/endpoint"
	"github.com/sandmux/sandmux/termsafe"
)

const lsUsage = "sandmux ls: the running servers: name, sessions, clients"

// runLs lists the servers whose sockets are in sandmux's socket directory.
func runLs(ctx context.Context, args []string, s stdio) int {
	if len(args) > 0 {
		fmt.Fprintln(s.err, "usage:", lsUsage)
		return exitUsage
	}
	servers, err := daemon.List(ctx, probeServer)
	if err != nil {
		termsafe.Fprintln(s.err, "sandmux ls:", err)
		return exitFailure
	}
	if len(servers) == 0 {
		fmt.Fprintln(s.out, "no server runs (start one with sandmux or sandmux serve)")
		return exitOK
	}
	tw := tabwriter.NewWriter(s.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSESSIONS\tCLIENTS\tSOCKET")
	for _, sv := range servers {
		switch {
		case sv.Stale:
			fmt.Fprintf(tw, "%s\t-\t-\t%s (stale: no server answers)\n", termsafe.String(sv.Name), termsafe.String(sv.Socket))
		case sv.Refused:
			fmt.Fprintf(tw, "%s\t-\t-\t%s (skipped, another user's: %s)\n", termsafe.String(sv.Name), termsafe.String(sv.Socket), termsafe.String(sv.Err.Error()))
		case sv.Err != nil:
			fmt.Fprintf(tw, "%s\t?\t?\t%s (%s)\n", termsafe.String(sv.Name), termsafe.String(sv.Socket), termsafe.String(sv.Err.Error()))
		default:
			fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", termsafe.String(sv.Name), sv.Sessions, sv.Clients, termsafe.String(sv.Socket))
		}
	}
	_ = tw.Flush() // Best effort: nowhere else to report.
	return exitOK
}

// probeServer asks the server at socket for its sessions and clients.
func probeServer(ctx context.Context, socket string) (sessions, clients int, err error) {
	conn, err := endpoint.Dial(socket)
	if err != nil {
		return 0, 0, err
	}
	cl := control.NewClient(conn)
	defer cl.Close()
	rep, err := cl.Call(ctx, control.Request{Op: control.OpLs})
	if err != nil {
		return 0, 0, err
	}
	if rep.Clients != nil {
		clients = *rep.Clients
	}
	return len(rep.Sessions), clients, nil
}
