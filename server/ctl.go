package server

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sandmux/sandmux/control"
	"github.com/sandmux/sandmux/keys/encode"
	"github.com/sandmux/sandmux/session/vt"
	"github.com/sandmux/sandmux/status"
)

// The control handler turns each request of `sandmux ctl` into calls on
// the core that owns the panes:
//
//	control.Server ──Request──▶ ctlHandler ──▶ Core (the panes' loop)
//	      ▲                         │  wait: re-checks Sessions() on each
//	      └────────Reply────────────┘        event from the control.Hub
//
// It owns no session state: every answer comes from the core as it is
// now, so a request never acts on a stale pane list.

// Core is what the control handler needs from the server's panes. Each
// call is safe from any goroutine; it runs on the core's loop and returns
// once done or refused. Its errors say what to do next.
type Core interface {
	// Sessions lists the panes in pane order; Number counts from 1.
	Sessions() []control.SessionInfo
	// List is Sessions with every running pane's CPU and memory read
	// now, as ctl ls shows them: the usage timer samples only the panes
	// that do something.
	List() []control.SessionInfo
	// Clients is how many clients are attached.
	Clients() int
	// Config is the config file the server read, "" for the built-in.
	Config() string
	// Run opens a local pane running argv; name "" is argv's first word.
	// It returns once the start ended; a start that failed is its error
	// and leaves no pane.
	Run(ctx context.Context, name string, argv []string) (control.SessionInfo, error)
	// Start opens one of the config's sandboxes, as Run does.
	Start(ctx context.Context, sandbox string) (control.SessionInfo, error)
	// Close returns once the teardown, and its snapshot, finished. ctx
	// ending (the client went away) ends the waiting, not the teardown.
	Close(ctx context.Context, id string) error
	// Kill returns once the kill is verified; ctx as for Close.
	Kill(ctx context.Context, id string) error
	// Restart restarts an exited, killed or failed session.
	Restart(id string) error
	// Input types what encode returns, called with the session's modes
	// at the moment of writing.
	Input(id string, encode func(vt.Modes) []byte) error
	// Screen is the session's screen as `sandmux screen` prints one.
	Screen(id string, ansi, scrollback bool) (string, error)
	// Report sets a report's claim on the session's state (ctl status).
	Report(id string, st status.State, reason string, ttl time.Duration) (control.SessionInfo, error)
	// Quit begins the quit as prefix q then y does (kill: as a second q)
	// and returns once it began.
	Quit(kill bool) error
	// Record starts, stops, pauses or resumes a recording, or marks one
	// (ctl_record.go), and returns its file.
	Record(ctx context.Context, r RecordRequest) (string, error)
	// SaveLast writes the last d of a session's output to file.
	SaveLast(ctx context.Context, id string, d time.Duration, file string) (string, error)
}

// ctlHandler answers control requests from a Core.
type ctlHandler struct {
	core   Core
	hub    *control.Hub
	tokens Tokens // nil: no web client
}

// NewHandler answers control requests by calling core; wait listens to
// hub for the moments worth re-checking. It returns the interface rather
// than its type so the package's namespace keeps only what callers use.
func NewHandler(core Core, hub *control.Hub, opts ...HandlerOption) control.Handler {
	h := &ctlHandler{core: core, hub: hub}
	for _, o := range opts {
		o(h)
	}
	return h
}

// ctlOps is the table of operations. OpEvents never reaches a Handler:
// control.Server streams it from the hub itself.
var ctlOps = map[control.Op]func(h *ctlHandler, ctx context.Context, req control.Request) (control.Reply, error){
	control.OpLs:       (*ctlHandler).ls,
	control.OpRun:      (*ctlHandler).run,
	control.OpStart:    (*ctlHandler).start,
	control.OpClose:    (*ctlHandler).close,
	control.OpKill:     (*ctlHandler).kill,
	control.OpRestart:  (*ctlHandler).restart,
	control.OpSend:     (*ctlHandler).send,
	control.OpKeys:     (*ctlHandler).keys,
	control.OpScreen:   (*ctlHandler).screen,
	control.OpWait:     (*ctlHandler).wait,
	control.OpStatus:   (*ctlHandler).status,
	control.OpQuit:     (*ctlHandler).quit,
	control.OpRecord:   (*ctlHandler).record,
	control.OpSaveLast: (*ctlHandler).saveLast,
	control.OpProfile:  (*ctlHandler).profile,

	control.OpTokenNew:    (*ctlHandler).tokenNew,
	control.OpTokenLs:     (*ctlHandler).tokenLs,
	control.OpTokenRevoke: (*ctlHandler).tokenRevoke,
}

// Handle answers one request.
func (h *ctlHandler) Handle(ctx context.Context, req control.Request) control.Reply {
	op, ok := ctlOps[req.Op]
	if !ok {
		return control.Fail(fmt.Errorf("op %s is not answered here: use sandmux ctl, which knows the ops this server takes", quote(string(req.Op))))
	}
	rep, err := op(h, ctx, req)
	if err != nil {
		return control.Fail(err)
	}
	rep.OK = true
	return rep
}

func (h *ctlHandler) ls(context.Context, control.Request) (control.Reply, error) {
	clients := h.core.Clients()
	return control.Reply{Sessions: h.core.List(), Clients: &clients, Config: h.core.Config()}, nil
}

// run opens the pane and answers once it runs. Its error is the core's
// as it is: a failed start already names the pane and the command.
func (h *ctlHandler) run(ctx context.Context, req control.Request) (control.Reply, error) {
	if len(req.Argv) == 0 || req.Argv[0] == "" {
		return control.Reply{}, errors.New("run needs a command: give it after --, as in sandmux ctl run -- htop")
	}
	si, err := h.core.Run(ctx, req.Name, req.Argv)
	if err != nil {
		return control.Reply{}, err
	}
	return control.Reply{Session: &si}, nil
}

func (h *ctlHandler) start(ctx context.Context, req control.Request) (control.Reply, error) {
	if req.Sandbox == "" {
		return control.Reply{}, errors.New("start needs a sandbox: name one of the config's sandboxes")
	}
	si, err := h.core.Start(ctx, req.Sandbox)
	if err != nil {
		return control.Reply{}, fmt.Errorf("start sandbox %s: %w", quote(req.Sandbox), err)
	}
	return control.Reply{Session: &si}, nil
}

func (h *ctlHandler) close(ctx context.Context, req control.Request) (control.Reply, error) {
	return h.act(req, "close", func(id string) error { return h.core.Close(ctx, id) })
}

func (h *ctlHandler) kill(ctx context.Context, req control.Request) (control.Reply, error) {
	return h.act(req, "kill", func(id string) error { return h.core.Kill(ctx, id) })
}

func (h *ctlHandler) restart(_ context.Context, req control.Request) (control.Reply, error) {
	return h.act(req, "restart", h.core.Restart)
}

// act resolves the request's session, does what to it, and answers with
// the session as it is afterwards (none when it is gone).
func (h *ctlHandler) act(req control.Request, verb string, what func(id string) error) (control.Reply, error) {
	si, err := h.resolve(req.Session)
	if err != nil {
		return control.Reply{}, err
	}
	if err := what(si.ID); err != nil {
		return control.Reply{}, fmt.Errorf("%s %s: %w", verb, describe(si), err)
	}
	return control.Reply{Session: h.byID(si.ID)}, nil
}

// status reports the session's state, as an agent's hooks do from
// inside its pane.
func (h *ctlHandler) status(_ context.Context, req control.Request) (control.Reply, error) {
	st, err := status.ParseReport(req.State)
	if err != nil {
		return control.Reply{}, err
	}
	if req.TTL < 0 {
		return control.Reply{}, errors.New("ttl cannot be negative: give how long the report holds, or none for until the next")
	}
	if len(req.Reason) > status.MaxReason {
		return control.Reply{}, fmt.Errorf("the reason has %d bytes: say it in at most %d", len(req.Reason), status.MaxReason)
	}
	si, err := h.resolve(req.Session)
	if err != nil {
		return control.Reply{}, err
	}
	cur, err := h.core.Report(si.ID, st, req.Reason, time.Duration(req.TTL))
	if err != nil {
		return control.Reply{}, fmt.Errorf("report %s for %s: %w", req.State, describe(si), err)
	}
	return control.Reply{Session: &cur}, nil
}

func (h *ctlHandler) send(_ context.Context, req control.Request) (control.Reply, error) {
	if len(req.Data) == 0 {
		return control.Reply{}, errors.New("send needs data: nothing to type")
	}
	bytesFor := func(vt.Modes) []byte { return req.Data }
	if req.Paste {
		bytesFor = func(m vt.Modes) []byte { return encode.PasteData(req.Data, m) }
	}
	return h.input(req, bytesFor)
}

func (h *ctlHandler) keys(_ context.Context, req control.Request) (control.Reply, error) {
	if len(req.Keys) == 0 {
		return control.Reply{}, errors.New("keys needs at least one key name, such as enter or ctrl+c")
	}
	// Names are checked before anything is typed; modes only change which
	// bytes a valid name becomes, never whether it has any.
	if _, err := encode.KeyNames(req.Keys, vt.Modes{}); err != nil {
		return control.Reply{}, err
	}
	return h.input(req, func(m vt.Modes) []byte {
		b, _ := encode.KeyNames(req.Keys, m) // Best effort: the names were checked above.
		return b
	})
}

func (h *ctlHandler) input(req control.Request, bytesFor func(vt.Modes) []byte) (control.Reply, error) {
	si, err := h.resolve(req.Session)
	if err != nil {
		return control.Reply{}, err
	}
	if err := h.core.Input(si.ID, bytesFor); err != nil {
		return control.Reply{}, fmt.Errorf("type into %s: %w", describe(si), err)
	}
	return control.Reply{}, nil
}

func (h *ctlHandler) screen(_ context.Context, req control.Request) (control.Reply, error) {
	si, err := h.resolve(req.Session)
	if err != nil {
		return control.Reply{}, err
	}
	text, err := h.core.Screen(si.ID, req.ANSI, req.Scrollback)
	if err != nil {
		return control.Reply{}, fmt.Errorf("read the screen of %s: %w", describe(si), err)
	}
	return control.Reply{Screen: text}, nil
}

func (h *ctlHandler) quit(_ context.Context, req control.Request) (control.Reply, error) {
	if err := h.core.Quit(req.Kill); err != nil {
		return control.Reply{}, fmt.Errorf("quit: %w", err)
	}
	return control.Reply{}, nil
}
