package main

import (
	"context"
	"flag"
	"fmt"
	"log"

	"github.com/sandmux/sandmux/endpoint"
	"github.com/sandmux/sandmux/serve"
	"github.com/sandmux/sandmux/termsafe"
)

const serveUsage = "sandmux serve [-L NAME | -S PATH] [-c FILE] [--size COLSxROWS] ['CMD' ...]: run a server in the foreground, with no client (SIGTERM quits it)"

// runServe runs a sandmux server (package serve) until a quit from a
// client, from ctl, or SIGTERM or SIGINT has torn everything down.
func runServe(ctx context.Context, args []string, s stdio) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(termsafe.NewWriter(s.err)) // flag prints a refused argument raw
	o := serve.Options{Parsers: parsers}
	fs.StringVar(&o.Name, "L", "", "the server's `NAME` (default "+endpoint.DefaultName+")")
	fs.StringVar(&o.Path, "S", "", "the server's socket `PATH`")
	fs.StringVar(&o.Config, "c", "", "read the config from `FILE`")
	fs.StringVar(&o.Size, "size", "80x24", "lay the panes out for a `COLSxROWS` terminal until a client attaches")
	fs.Usage = func() { fmt.Fprintln(s.err, "usage:", serveUsage); fs.PrintDefaults() }
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	o.Cmds = fs.Args()
	logger := log.New(termsafe.NewWriter(s.err), "sandmux: ", log.LstdFlags)
	code, err := serve.Run(ctx, o, logger, s.out)
	if err != nil {
		logger.Println(err)
	}
	return code
}
