// Package providers defines what a session needs from a sandbox provider: a
// way to open one pseudo-terminal for a Spec, and the PTY handle that reads,
// writes, resizes, signals, waits for and closes it. It also holds the table
// of providers by name, and the Descriptor each provider package exports
// (name, constructor, option keys and check, where its workspaces live),
// which package main lists once in a Registry.
//
// It owns the interfaces only. Each provider lives in its own subpackage
// (local, ssh, docker, exec) and imports nothing but this package and its own
// libraries; it keeps no registry of its own. This package must not import
// session or ui.
package providers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Size is a terminal size in character cells.
type Size struct {
	Cols, Rows uint16
}

func (s Size) String() string { return fmt.Sprintf("%dx%d", s.Cols, s.Rows) }

// Spec says what to open. Providers read the fields that apply to them.
type Spec struct {
	// Name is the sandbox's name, for messages and templates.
	Name string
	// Command is the program and its arguments. Empty means the provider's
	// default interactive shell.
	Command []string
	// Env holds extra KEY=VALUE pairs for the child, added after the
	// provider's own environment.
	Env []string
	// Dir is the workspace: the working directory of the child.
	Dir string
	// Size is the initial terminal size.
	Size Size
	// Term is the TERM the child sees; empty means DefaultTerm.
	Term string
	// Options holds provider-specific settings from the provider's table in
	// the config, already validated by the provider's own Validate.
	Options map[string]any
}

// DefaultTerm is the TERM a child sees unless the spec says otherwise.
const DefaultTerm = "xterm-256color"

// TermOrDefault returns s.Term, or DefaultTerm when it is empty.
func (s Spec) TermOrDefault() string {
	if s.Term == "" {
		return DefaultTerm
	}
	return s.Term
}

// Provider opens PTYs on one kind of sandbox.
type Provider interface {
	// Open starts the spec's command on a new PTY. On error, or when ctx is
	// cancelled at any step, Open releases everything it created before it
	// returns (contract S1): the caller owns nothing.
	Open(ctx context.Context, spec Spec) (PTY, error)
}

// PTY is one running command on a pseudo-terminal.
//
// Read and Write may be called concurrently with each other and with the
// control methods. Read returns io.EOF once the terminal has no more output
// (an EIO from a local master counts as EOF).
//
// A control method may also be called while an earlier one still runs: a
// teardown stops waiting for a Signal or GroupAlive that overran its stage
// and goes on (the next signal, then Close). Close must not wait on the
// sandbox: it tears the transport down, which makes such stuck calls
// return.
type PTY interface {
	io.Reader
	io.Writer

	// Resize sets the terminal size seen by the child.
	Resize(Size) error
	// Signal delivers sig to the whole process group where the provider can,
	// else to the command alone.
	Signal(sig syscall.Signal) error
	// Wait blocks until the command has exited and been reaped, and returns
	// how it ended. It may be called more than once and from several
	// goroutines; every call returns the same result. ctx bounds the wait
	// only; it does not stop the command.
	Wait(ctx context.Context) (ExitStatus, error)
	// GroupAlive reports whether any process of the command's group is still
	// running (contract C12). Providers that cannot see a group report on
	// the command alone. It reaps group members the provider is responsible
	// for, so a true answer never means "only zombies are left".
	GroupAlive() (bool, error)
	// Close releases the terminal and every resource of the handle. It does
	// not wait for the command; it is idempotent.
	Close() error
}

// Process names one process of a sandbox, for messages.
type Process struct {
	PID int
	// Command is its command line, control characters escaped.
	Command string
}

func (p Process) String() string { return fmt.Sprintf("pid %d (%s)", p.PID, p.Command) }

// SurvivorLister is implemented by PTYs that can name the processes still
// alive after a kill, so that a teardown which could not verify the group
// gone says which processes survived.
type SurvivorLister interface {
	Survivors() []Process
}

// ExitStatus is how a command ended.
type ExitStatus struct {
	// Code is the exit code, or -1 when the command died of a signal or the
	// provider cannot know it.
	Code int
	// Signal is the signal that ended the command, or 0.
	Signal syscall.Signal
	// Unknown is set when the provider cannot learn how the command ended.
	Unknown bool
}

// ShellCode returns the status as a shell reports it: the exit code, or
// 128+N for death by signal N.
func (e ExitStatus) ShellCode() int {
	if e.Signal != 0 {
		return 128 + int(e.Signal)
	}
	if e.Code < 0 {
		return 1
	}
	return e.Code
}

func (e ExitStatus) String() string {
	switch {
	case e.Unknown:
		return "exited (status unknown)"
	case e.Signal != 0:
		return "killed by " + SignalName(e.Signal)
	default:
		return fmt.Sprintf("exited %d", e.Code)
	}
}

// SignalName is how sandmux names a signal in what it shows: SIGTERM,
// or "signal N" for one it has no name for.
func SignalName(s syscall.Signal) string {
	names := map[syscall.Signal]string{
		syscall.SIGHUP: "SIGHUP", syscall.SIGINT: "SIGINT", syscall.SIGQUIT: "SIGQUIT",
		syscall.SIGKILL: "SIGKILL", syscall.SIGTERM: "SIGTERM", syscall.SIGPIPE: "SIGPIPE",
		syscall.SIGABRT: "SIGABRT", syscall.SIGSEGV: "SIGSEGV",
	}
	if n, ok := names[s]; ok {
		return n
	}
	return fmt.Sprintf("signal %d", int(s))
}

// PIDer is implemented by a PTY whose provider knows the process it
// started (a local pane), for ctl ls.
type PIDer interface {
	PID() int
}

// Usage is what a sandbox's processes use, for the session list and ctl
// ls: the CPU time they used so far (user and system, cumulative, so that
// a consumer takes the rate over its own interval) and their resident
// memory now. A PTY that can tell has a Usage method returning it.
type Usage struct {
	CPU time.Duration
	RSS int64 // bytes
}

// Workspace is implemented by providers that can read and write a sandbox's
// workspace as a tar stream (used by snapshots).
type Workspace interface {
	// ExportWorkspace writes the workspace of spec as a tar stream rooted at
	// "." to w.
	ExportWorkspace(ctx context.Context, spec Spec, w io.Writer) error
	// ImportWorkspace replaces the workspace of spec with the tar stream r.
	ImportWorkspace(ctx context.Context, spec Spec, r io.Reader) error
}

// OptionKey describes one key of a provider's options, for the config
// file's documentation and checks.
type OptionKey struct {
	Name string
	// Kind is the value's type as the config docs name it.
	Kind string
	// Default is the default as TOML decodes it (string, int64, bool,
	// []any), or nil when the key is required or its default is computed;
	// Note then says which.
	Default any
	Note    string
	// Help is one sentence.
	Help string
}

// ErrDisconnected is returned by a remote PTY's Read, Write and Wait once
// the connection to its sandbox dropped: the output ended, but how the
// command ended is unknown.
var ErrDisconnected = errors.New("disconnected")

// Table maps provider names, as written in the config, to providers.
type Table map[string]Provider

// ErrUnknownProvider is returned by Lookup for a name not in the table.
var ErrUnknownProvider = errors.New("unknown provider")

// Lookup returns the provider called name.
func (t Table) Lookup(name string) (Provider, error) {
	if p, ok := t[name]; ok {
		return p, nil
	}
	return nil, fmt.Errorf("%w %q: use one of %s", ErrUnknownProvider, name, strings.Join(t.Names(), ", "))
}

// Names returns the provider names in sorted order.
func (t Table) Names() []string {
	names := make([]string, 0, len(t))
	for n := range t {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// ParseSize parses "COLSxROWS", e.g. "80x24". Both must be 1 to 9999.
func ParseSize(s string) (Size, error) {
	c, r, ok := strings.Cut(strings.ToLower(strings.TrimSpace(s)), "x")
	cols, err1 := strconv.Atoi(c)
	rows, err2 := strconv.Atoi(r)
	if !ok || err1 != nil || err2 != nil || cols < 1 || rows < 1 || cols > 9999 || rows > 9999 {
		return Size{}, fmt.Errorf("size %q: write COLSxROWS, e.g. 80x24, each from 1 to 9999", s)
	}
	return Size{Cols: uint16(cols), Rows: uint16(rows)}, nil
}
