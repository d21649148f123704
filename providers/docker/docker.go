// Package docker opens sandboxes in Docker containers through the Docker
// Engine API (github.com/moby/moby/client), on the engine named by the host
// option, $DOCKER_HOST or the local socket.
//
// It owns one exec with a TTY per PTY: attaching to a running container, or
// creating one from an image with the workspace bind-mounted (labelled
// sandmux=1, removed on close when configured); the hijacked connection
// that carries the terminal; resizing it; signalling and verifying the
// exec's session inside the container; learning its exit code; and reading
// and writing the workspace as a tar stream through the archive API. It
// keeps no registry (the session package owns the handles it returns), and
// does not pull or build images: the image must already be on the engine.
//
//	Open:   ping ─► [create + start container] ─► exec create ─► exec start (hijack) ─► pid, resize, session lookup ─► watcher
//	PTY:    Read/Write ◄─► hijacked conn     Resize ─► exec resize     Wait ◄─ watcher ◄─ exec_die events, EOF, inspect
//	        Signal ─► helper exec (sessionScript) | container kill     GroupAlive ─► container top
//	Close:  [SIGHUP the session] ─► close conn ─► join watcher ─► [remove container] ─► close client
package docker

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/sandmux/sandmux/providers"
)

// Provider opens PTYs in Docker containers. Its zero value is ready to use;
// every setting comes from the spec's options (see ParseOptions).
type Provider struct {
	server string // labels the containers it creates (ServerLabel); "" for none
}

// New returns a docker provider.
func New() *Provider { return &Provider{} }

// ForServer returns a docker provider that labels the containers it
// creates with server (ServerLabel), so that the next server can remove
// them if this one dies without its teardown (Reap).
func ForServer(server string) *Provider { return &Provider{server: server} }

// Label marks the containers sandmux creates: `docker ps -af label=sandmux=1`
// lists them, for example after a crash.
const Label = "sandmux"

// ServerLabel holds the instance of the server that created a container
// (reap.Record.Instance).
const ServerLabel = Label + ".server"

// idleCommand keeps a created container running between execs; busybox and
// coreutils both have sleep, and 2^31-1 seconds is what both accept.
var idleCommand = []string{"sleep", "2147483647"}

// stepTimeout bounds each step of Open that creates something on the
// engine. Those steps run to completion even when Open is cancelled, so
// that whatever they created is known and can be released (contract S1).
const stepTimeout = 60 * time.Second

// testHookStep, when set by a test, runs in each step of Open named in the
// step constants, with Open's context: a gate to cancel the start while
// that step runs.
var testHookStep func(ctx context.Context, step string)

// Steps of Open, for testHookStep.
const (
	stepCreate     = "container-create"
	stepStart      = "container-start"
	stepExecCreate = "exec-create"
	stepExecStart  = "exec-start"
	stepStarted    = "exec-started"
)

// Open starts spec's command (or the shell option) with a TTY in the
// container the options name, or in a new container from the image they
// name. If it fails or ctx is cancelled at any step, everything it created
// is released before it returns (contract S1): the connection, the exec's
// processes, and a container it created.
func (p *Provider) Open(ctx context.Context, spec providers.Spec) (providers.PTY, error) {
	opts, err := ParseOptions(spec.Options)
	if err != nil {
		return nil, fmt.Errorf("open docker pty for %q: %w", spec.Name, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("open docker pty for %q: %w", spec.Name, context.Cause(ctx))
	}
	s := &starter{spec: spec, opts: opts, server: p.server}
	h, err := s.start(ctx)
	if err != nil {
		return nil, fmt.Errorf("open docker pty for %q: %w", spec.Name, err)
	}
	return h, nil
}

// starter records what Open has created so far, so that a failure at any
// step releases exactly that.
type starter struct {
	spec   providers.Spec
	opts   Options
	server string // for ServerLabel

	e           *engine
	name        string // of the container to create, set before creating it
	created     bool   // a create request was sent
	cid         string
	token       string // SANDMUX_EXEC of the exec
	execID      string
	execStarted bool // an exec start was sent: a process may run
	h           *handle
}

func (s *starter) start(ctx context.Context) (h *handle, err error) {
	done := false
	defer func() {
		if done {
			return
		}
		// Also on panic: the caller must own nothing (S1).
		if rerr := s.release(); rerr != nil {
			err = errors.Join(err, fmt.Errorf("clean up after the failed start: %w", rerr))
		}
	}()
	if s.e, err = connect(ctx, engineHost(s.opts.Host), s.opts.ConnectTimeout); err != nil {
		return nil, err
	}
	if err := s.container(ctx); err != nil {
		return nil, err
	}
	if err := s.exec(ctx); err != nil {
		return nil, err
	}
	done = true
	return s.h, nil
}

// step runs one step that creates something on the engine. It begins only
// while ctx is live, then runs to completion on a detached, bounded
// context, so that whatever it created is known and can be released (S1);
// a cancellation that arrived meanwhile is reported once it is done.
func step(ctx context.Context, name string, f func(ctx context.Context) error) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	during(ctx, name)
	dctx, cancel := detached(ctx)
	err := f(dctx)
	cancel()
	if ctx.Err() != nil {
		return errors.Join(context.Cause(ctx), err)
	}
	return err
}

// during runs the test hook for a step, in the step: a gate standing for a
// cancellation that arrives while the step's request is in flight.
func during(ctx context.Context, name string) {
	if hook := testHookStep; hook != nil {
		hook(ctx, name)
	}
}

// detached returns a context for a step that must finish once begun.
func detached(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), stepTimeout)
}

// container finds the running container to attach to, or creates and
// starts one from the image.
func (s *starter) container(ctx context.Context) error {
	if s.opts.Container != "" {
		in, err := s.e.ContainerInspect(ctx, s.opts.Container, client.ContainerInspectOptions{})
		if err != nil {
			if ctx.Err() != nil {
				return context.Cause(ctx)
			}
			return fmt.Errorf("find container %q: %w (check the container option; docker ps lists running containers)", s.opts.Container, err)
		}
		if in.Container.State == nil || !in.Container.State.Running {
			return fmt.Errorf("container %q is not running (start it with: docker start %s)", s.opts.Container, s.opts.Container)
		}
		s.cid = in.Container.ID
		return nil
	}
	if strings.Contains(s.spec.Dir, ":") {
		return fmt.Errorf("workspace %q contains a colon, which a bind mount cannot name; choose another workspace", s.spec.Dir)
	}
	s.name = containerName(s.spec.Name)
	cfg, hostCfg := s.containerConfig()
	err := step(ctx, stepCreate, func(ctx context.Context) error {
		s.created = true
		res, err := s.e.ContainerCreate(ctx, client.ContainerCreateOptions{Name: s.name, Config: cfg, HostConfig: hostCfg})
		if err != nil {
			return fmt.Errorf("create a container from image %q: %w (docker images lists local images; pull or build it first)", s.opts.Image, err)
		}
		s.cid = res.ID
		return nil
	})
	if err != nil {
		return err
	}
	return step(ctx, stepStart, func(ctx context.Context) error {
		if _, err := s.e.ContainerStart(ctx, s.cid, client.ContainerStartOptions{}); err != nil {
			return fmt.Errorf("start container from image %q: %w (the image needs a sleep program to stay up)", s.opts.Image, err)
		}
		return nil
	})
}

func (s *starter) containerConfig() (*container.Config, *container.HostConfig) {
	cfg := &container.Config{
		Image:      s.opts.Image,
		Entrypoint: idleCommand,
		WorkingDir: s.opts.Workdir,
		Labels:     map[string]string{Label: "1", Label + ".name": s.spec.Name},
	}
	if s.server != "" {
		cfg.Labels[ServerLabel] = s.server
	}
	initProc := true // docker's init reaps the orphans of finished execs
	hostCfg := &container.HostConfig{Init: &initProc}
	if s.spec.Dir != "" {
		// Binds, unlike Mounts, create a missing workspace on the engine's
		// host, and work with every engine version the client speaks.
		hostCfg.Binds = []string{s.spec.Dir + ":" + s.opts.Workdir}
	}
	return cfg, hostCfg
}

// exec creates and starts the spec's command with a TTY, then waits for its
// pid and gives it the spec's size.
func (s *starter) exec(ctx context.Context) error {
	argv := s.spec.Command
	if len(argv) == 0 {
		argv = []string{s.opts.Shell}
	}
	s.token = newToken()
	env := append([]string{"TERM=" + s.spec.TermOrDefault()}, s.spec.Env...)
	env = append(env, "SANDMUX_EXEC="+s.token)
	size := client.ConsoleSize{Height: uint(s.spec.Size.Rows), Width: uint(s.spec.Size.Cols)}
	err := step(ctx, stepExecCreate, func(ctx context.Context) error {
		ex, err := s.e.ExecCreate(ctx, s.cid, client.ExecCreateOptions{
			User: s.opts.User, TTY: true, ConsoleSize: size, AttachStdin: true, AttachStdout: true, AttachStderr: true,
			Env: env, WorkingDir: s.opts.Workdir, Cmd: argv,
		})
		if err != nil {
			return fmt.Errorf("create exec of %q: %w (check the command, user and workdir options)", argv[0], err)
		}
		s.execID = ex.ID
		return nil
	})
	if err != nil {
		return err
	}
	err = step(ctx, stepExecStart, func(ctx context.Context) error {
		s.execStarted = true
		att, err := s.e.ExecAttach(ctx, s.execID, client.ExecAttachOptions{TTY: true, ConsoleSize: size})
		if err != nil {
			return fmt.Errorf("start exec of %q: %w", argv[0], err)
		}
		hctx, hcancel := context.WithCancel(context.WithoutCancel(ctx))
		s.h = &handle{
			e: s.e, cid: s.cid, created: s.created, remove: s.created && s.opts.RemoveOnClose,
			execID: s.execID, token: s.token, user: s.opts.User, conn: att.Conn, out: att.Reader,
			ctx: hctx, cancel: hcancel, sent: map[syscall.Signal]bool{},
			eof: make(chan struct{}), exited: make(chan struct{}), watchDone: make(chan struct{}),
		}
		return nil
	})
	if err != nil {
		return err
	}
	during(ctx, stepStarted)
	return s.settle(ctx)
}

// settle records the exec's pid and session, sets its size, and starts the
// watcher. Only the watcher is left running when it returns nil.
func (s *starter) settle(ctx context.Context) error {
	h := s.h
	in, err := waitForPid(ctx, s.e, h.execID)
	if err != nil {
		return err
	}
	h.hostPid = in.PID
	if in.Running {
		if sz := s.spec.Size; sz.Cols > 0 && sz.Rows > 0 {
			// The exec may not take a size until its process runs; the
			// docker CLI retries the same way. A short command may also
			// have ended already (the engine then knows no such exec):
			// its output and exit status are still to be read.
			resize := func() error {
				if err := h.Resize(sz); err != nil && !gone(err) {
					return err
				}
				return nil
			}
			if err := retry(ctx, resize); err != nil && ctx.Err() == nil {
				return err
			}
		}
		// Found now, while the command still has its environment. The
		// runtime's init may not have become the command yet, so look a few
		// times; Signal looks again if this fails (the image may lack grep).
		_ = retry(ctx, func() error { // Best effort, as said.
			sessions, err := s.e.findSessions(ctx, h.cid, h.user, h.token, nil)
			h.sessions = sessions
			if err != nil || len(sessions) > 0 {
				return err
			}
			if in, err := s.e.ExecInspect(ctx, h.execID, client.ExecInspectOptions{}); err == nil && ended(in) {
				return nil // a short command, already done
			}
			return errNoSession
		})
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	// The stream outlives Open (it ends with h.ctx, which Close cancels),
	// but subscribing is part of the start and ends with ctx.
	evCtx, stopEvents := context.WithCancel(h.ctx)
	stopOnCancel := context.AfterFunc(ctx, stopEvents)
	ev := s.e.Events(evCtx, client.EventsListOptions{
		Filters: make(client.Filters).Add("type", "container").Add("container", h.cid),
	})
	stopOnCancel()
	if ctx.Err() != nil {
		stopEvents()
		for range ev.Err {
			// Drain until the client's event goroutine has returned.
		}
		return context.Cause(ctx)
	}
	go h.watch(ev, stopEvents)
	return nil
}
