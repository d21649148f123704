package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/sandmux/sandmux/config"
	"github.com/sandmux/sandmux/control"
	"github.com/sandmux/sandmux/daemon"
	"github.com/sandmux/sandmux/endpoint"
	"github.com/sandmux/sandmux/providers/all"
	"github.com/sandmux/sandmux/termsafe"
)

// Client is what a client asks of the server it attaches to.
type Client struct {
	Config string   // the config file, "" for the search path
	Name   string   // -L NAME, for what it says
	Socket string   // where the server answers
	Cmds   []string // command lines to open as panes
	Size   string   // COLSxROWS of the client's terminal, "" when unknown
}

// Ensure makes sure a server answers at c.Socket: it starts one in the
// background (sandmux serve, through daemon.Start) on the config,
// checked here first so that its errors reach the client's terminal, or
// on c.Cmds; a server already running gets c.Cmds as new panes instead,
// and a line on errOut when it runs on another config.
func Ensure(ctx context.Context, c Client, errOut io.Writer) error {
	socket, cmds := c.Socket, c.Cmds
	cfg, err := config.Load(c.Config, all.Registry)
	if err != nil {
		return err
	}
	if err := refuseTemporaryServer(socket); err != nil {
		return err
	}
	serveArgs := []string{"serve", "-S", socket}
	file := ConfigFile(cfg)
	if file != "" {
		serveArgs = append(serveArgs, "-c", file)
	}
	if c.Size != "" {
		serveArgs = append(serveArgs, "--size", c.Size)
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
		otherConfig(ctx, socket, c.Name, file, errOut)
	}
	names := AdHocNames(cmds)
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
func otherConfig(ctx context.Context, socket, name, file string, errOut io.Writer) {
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
	termsafe.Fprintf(errOut, "sandmux: the server %s runs on %s, not %s: attaching to it; sandmux -L NAME -c %s starts a server of its own\n",
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
