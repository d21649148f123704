// Package ssh opens sandboxes on SSH hosts (golang.org/x/crypto/ssh): one
// connection per pane, one session on it with a PTY.
//
// It owns connecting (host keys checked against known_hosts, keys from
// ssh-agent and identity files), starting the remote command on a PTY,
// resizing and signalling it, learning how it ended, noticing a dropped
// connection (keepalives), and reading and writing the remote workspace as a
// tar stream by running tar on the host. It keeps no registry: the session
// package owns the handles it returns.
//
//	Open:  dial (TCP, handshake; ctx closes the conn) ─► session ─► pty-req ─► env ─► exec
//	PTY:   Read ◄─ channel stdout (the PTY merges stderr)    Write ─► channel stdin
//	       reaper: session.Wait ─► exit status, or disconnected
//	       keepalive: keepalive@openssh.com every interval ─► disconnected after 3 unanswered
//	       Signal: "signal" request; sweep (second session: kill the groups of
//	       processes carrying the pane's marker); hang-up as the last resort
//	       GroupAlive: channel open, else a sweep that only counts
//
// The remote login shell must be POSIX-like (sh, bash, dash, zsh, ksh): the
// command, workspace and refused environment variables are passed to it as
// one quoted command line.
package ssh

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/crypto/ssh"

	"github.com/sandmux/sandmux/providers"
)

// Provider opens PTYs on SSH hosts. Its zero value is ready to use.
type Provider struct {
	// Warn, when set, receives warnings for the user, such as a host key
	// that was not checked. Open calls it on its own goroutine.
	Warn func(msg string)
}

// New returns an ssh provider that reports warnings to warn (may be nil).
func New(warn func(msg string)) *Provider { return &Provider{Warn: warn} }

func (p *Provider) warn(msg string) {
	if p.Warn != nil {
		p.Warn(msg)
	}
}

// ErrDisconnected is wrapped by the errors Read, Write and Wait return once
// the connection to the host dropped (keepalives unanswered, or the TCP
// connection closed) while the command was still running. How the command
// ended is then unknown.
var ErrDisconnected = providers.ErrDisconnected

// Open connects to the spec's host and starts its command on a PTY there.
// ctx cancels every step; whatever Open created is released before it
// returns with an error (contract S1). A remote command that already
// started is hung up by closing the connection, which makes sshd close the
// PTY and so send SIGHUP to it.
func (p *Provider) Open(ctx context.Context, spec providers.Spec) (providers.PTY, error) {
	o, err := ParseOptions(spec.Options)
	if err != nil {
		return nil, fmt.Errorf("open ssh pty for %q: %w", spec.Name, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("open ssh pty for %q: %w", spec.Name, context.Cause(ctx))
	}
	client, err := p.dial(ctx, o)
	if err != nil {
		return nil, fmt.Errorf("open ssh pty for %q: %w", spec.Name, err)
	}
	h, err := start(ctx, client, spec, o)
	if err != nil {
		closeClient(client)
		return nil, fmt.Errorf("open ssh pty for %q on %s: %w", spec.Name, o.Addr(), err)
	}
	return h, nil
}

// start opens a session on client and starts the spec's command on a PTY.
// A cancelled ctx closes the client, which unblocks whatever request is in
// flight; the caller closes the client on error.
func start(ctx context.Context, client *ssh.Client, spec providers.Spec, o Options) (*handle, error) {
	disarm := closeOnCancel(ctx, func() { _ = client.Close() })
	cancelled := func() error {
		if disarm() {
			return context.Cause(ctx)
		}
		return nil
	}
	sess, err := client.NewSession()
	if err != nil {
		return nil, errors.Join(cancelled(), fmt.Errorf("open a session: %w", err))
	}
	hook("session")
	stdin, err := sess.StdinPipe()
	if err != nil {
		return nil, errors.Join(cancelled(), fmt.Errorf("connect stdin: %w", err))
	}
	stdout, err := sess.StdoutPipe()
	if err != nil {
		return nil, errors.Join(cancelled(), fmt.Errorf("connect stdout: %w", err))
	}
	modes := ssh.TerminalModes{ssh.TTY_OP_ISPEED: 38400, ssh.TTY_OP_OSPEED: 38400}
	if err := sess.RequestPty(spec.TermOrDefault(), int(spec.Size.Rows), int(spec.Size.Cols), modes); err != nil {
		return nil, errors.Join(cancelled(), fmt.Errorf("request a terminal: %w (the server may forbid PTYs: check PermitTTY in its sshd_config)", err))
	}
	marker := newMarker()
	var refused []string
	for _, kv := range append(slices.Clip(spec.Env), markerVar+"="+marker) {
		k, v, _ := strings.Cut(kv, "=")
		// sshd accepts only the names its AcceptEnv lists; the others are
		// exported by the command line instead.
		if err := sess.Setenv(k, v); err != nil {
			refused = append(refused, kv)
		}
	}
	if cmd := remoteCommand(spec, refused); cmd == "" {
		err = sess.Shell()
	} else {
		err = sess.Start(cmd)
	}
	if err != nil {
		return nil, errors.Join(cancelled(), fmt.Errorf("start the command: %w", err))
	}
	hook("started")
	if err := cancelled(); err != nil {
		return nil, err
	}
	return newHandle(client, sess, stdin, stdout, o, marker), nil
}

// remoteCommand is the command line for the remote login shell, or "" to
// ask for the login shell itself: the spec's command, each argument quoted,
// run in the workspace (created if missing, as sandmux does for local
// sandboxes) with the refused environment variables exported.
//
// It starts only on a terminal that is still there (hungUpGuard): sshd
// forks the command and the child takes the PTY as its terminal a moment
// later; a connection closed in between (a pane closed as it opened)
// hangs up a terminal no process holds yet, so no SIGHUP reaches the
// command, and it would run on under init. Its standard input is then
// a hung-up terminal, which no longer reads as one.
func remoteCommand(spec providers.Spec, refusedEnv []string) string {
	if len(spec.Command) == 0 && spec.Dir == "" && len(refusedEnv) == 0 {
		// A login shell reads the terminal: a hung-up one ends it.
		return ""
	}
	var b strings.Builder
	b.WriteString(hungUpGuard)
	for _, kv := range refusedEnv {
		k, v, _ := strings.Cut(kv, "=")
		if envName.MatchString(k) {
			fmt.Fprintf(&b, "export %s=%s && ", k, quote(v))
		}
	}
	if spec.Dir != "" {
		fmt.Fprintf(&b, "mkdir -p -- %s && cd -- %s && ", quote(spec.Dir), quote(spec.Dir))
	}
	if len(spec.Command) == 0 {
		// What sshd would run for a shell request: the login shell, as a
		// login shell.
		b.WriteString(`exec "${SHELL:-/bin/sh}" -l`)
		return b.String()
	}
	b.WriteString("exec")
	for _, a := range spec.Command {
		b.WriteString(" " + quote(a))
	}
	return b.String()
}

// hungUpGuard ends the command line, as a hang-up would have (128 +
// SIGHUP), when its standard input is no terminal.
const hungUpGuard = "[ -t 0 ] || exit 129; "

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// quote returns s as one word for a POSIX shell: unchanged when it holds
// only characters no shell treats specially, else in single quotes.
func quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./-_") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// copyInto copies src to dst and closes dst, reporting the copy's error.
func copyInto(dst io.WriteCloser, src io.Reader) error {
	_, err := io.Copy(dst, src)
	return errors.Join(err, dst.Close())
}
