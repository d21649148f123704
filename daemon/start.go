package daemon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"
)

// DefaultTimeout bounds how long Start waits for a new server to answer.
const DefaultTimeout = 10 * time.Second

// killGrace is how long a server that never answered gets to exit after
// SIGTERM (it may have started sandboxes to tear down) before SIGKILL.
const killGrace = 3 * time.Second

// Options says which server Start makes sure of, and how to start it.
type Options struct {
	// Socket is the server's socket, as endpoint.Path gives it. Required.
	Socket string
	// Name names the log, StateDir/NAME.log; empty means LogName(Socket).
	Name string
	// Args are the server's arguments, after the executable.
	Args []string
	// Exe is the program to run; empty means this one (os.Executable).
	// It must be the server itself, not a wrapper that forks it: Start
	// tells its own server from another by the socket peer's pid.
	Exe string
	// Env is the server's environment; nil means this process's.
	Env []string
	// Timeout bounds the wait for the socket to answer, including the
	// wait for another client that is starting the same server; 0 means
	// DefaultTimeout.
	Timeout time.Duration
}

func (o Options) withDefaults() (Options, error) {
	if o.Socket == "" {
		return o, errors.New("start a server: no socket given")
	}
	if o.Name == "" {
		o.Name = LogName(o.Socket)
	}
	if o.Exe == "" {
		exe, err := os.Executable()
		if err != nil {
			return o, fmt.Errorf("find sandmux's own executable to start the server: %w", err)
		}
		o.Exe = exe
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	return o, nil
}

// Start makes sure a server answers at opts.Socket, starting one in the
// background when none does, and returns once the socket accepts a
// connection. pid is the server this call started; it is 0 when a server
// already answered (then opts.Args were not used: a caller with ad-hoc
// commands sends them to that server instead).
//
// Two clients starting the same server at once are serialised by a lock
// file next to the socket, held only while starting: the second finds the
// first's server answering and attaches to it. (endpoint.Listen alone
// cannot decide that race: it removes a stale socket and then binds, and
// two servers doing that at once can each remove the other's fresh
// socket, leaving one running unreachable.) A server started some other
// way meanwhile (`sandmux serve`) makes the one started here exit early,
// refused by Listen; Start then finds that one answering and succeeds.
//
// The server runs in a session of its own, with stdin on /dev/null and
// stdout and stderr appended to its log, in this process's working
// directory. It is this process's child until this process exits and is
// then reparented; a server that exits early is reaped here, and the
// error quotes the end of its log. One that does not answer within the
// timeout is stopped (SIGTERM to its process group, SIGKILL after a
// grace) and reaped.
func Start(ctx context.Context, opts Options) (pid int, err error) {
	opts, err = opts.withDefaults()
	if err != nil {
		return 0, err
	}
	log, err := LogPath(opts.Name)
	if err != nil {
		return 0, err
	}
	wctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	unlock, err := lockOrServed(wctx, opts.Socket)
	if err != nil {
		return 0, fmt.Errorf("start the server at %s: %w", opts.Socket, why(ctx, err, opts.Timeout))
	}
	if unlock == nil {
		return 0, nil // A server answers.
	}
	defer unlock()
	return spawn(wctx, ctx, opts, log)
}

// lockOrServed waits until either a server answers at socket (it returns
// a nil unlock) or this process holds the start lock and still no server
// answers (it returns how to release it).
func lockOrServed(ctx context.Context, socket string) (unlock func(), err error) {
	lock, err := openLock(socket)
	if err != nil {
		return nil, err
	}
	var p poller
	for {
		if up, err := answers(socket); err != nil || up {
			_ = lock.Close() // Best effort: never locked.
			return nil, err
		}
		held, err := tryLock(lock)
		if err != nil {
			_ = lock.Close() // Best effort: the lock error is the one to report.
			return nil, err
		}
		if held {
			// Whoever held it before may have finished just now.
			if up, err := answers(socket); err != nil || up {
				_ = lock.Close() // Best effort: closing releases the lock.
				return nil, err
			}
			return func() { _ = lock.Close() }, nil // Best effort: closing releases the lock.
		}
		if err := p.wait(ctx); err != nil {
			_ = lock.Close() // Best effort: never locked.
			return nil, err
		}
	}
}

// spawn starts the server and waits until its socket answers, for as
// long as ctx lets it (parent is the caller's, to tell a timeout from a
// cancel).
func spawn(ctx, parent context.Context, opts Options, log string) (int, error) {
	logf, from, err := openLog(log)
	if err != nil {
		return 0, err
	}
	defer logf.Close() // The child has its own copy.
	null, err := os.Open(os.DevNull)
	if err != nil {
		return 0, fmt.Errorf("open %s for the server's stdin: %w", os.DevNull, err)
	}
	defer null.Close() // The child has its own copy.
	// Not CommandContext: the server must outlive this call and this
	// process. Plain files as stdio keep exec from starting copiers.
	cmd := exec.Command(opts.Exe, opts.Args...)
	cmd.Env = opts.Env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = null, logf, logf
	cmd.SysProcAttr = newSession()
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("start the sandmux server %s: %w", opts.Exe, err)
	}
	return await(ctx, parent, cmd, opts, logSince{log, from})
}

// logSince is where a server's own output starts in its log.
type logSince struct {
	path string
	from int64
}

func (l logSince) String() string { return l.path + ":\n" + logTail(l.path, l.from) }

// await waits until the socket answers from cmd's server (its pid), cmd
// exits (reaped here), or ctx ends (cmd is stopped).
func await(ctx, parent context.Context, cmd *exec.Cmd, opts Options, log logSince) (int, error) {
	pid := cmd.Process.Pid
	var p poller
	for {
		gone, err := exited(pid)
		if err != nil {
			stop(ctx, cmd)
			return 0, err
		}
		if gone {
			status := "exit status 0"
			if err := cmd.Wait(); err != nil { // Reaps it; it has exited already.
				status = err.Error()
			}
			if up, _ := answers(opts.Socket); up {
				return 0, nil // Another server won; this one was refused.
			}
			return 0, fmt.Errorf("the sandmux server exited (%s) before it answered at %s; the end of its log %s\nfix what it says and try again",
				status, opts.Socket, log)
		}
		// Another server answering (started meanwhile some other way)
		// is not success yet: this one still runs, with arguments the
		// caller thinks were used, until Listen refuses it and it exits.
		peer, err := answeredBy(opts.Socket)
		if err != nil {
			stop(ctx, cmd)
			return 0, err
		}
		if peer == pid {
			return pid, nil
		}
		if err := p.wait(ctx); err != nil {
			stop(ctx, cmd)
			if up, _ := answers(opts.Socket); up {
				return 0, nil // Another server answers; this one never did.
			}
			return 0, fmt.Errorf("the sandmux server (pid %d) did not answer at %s, so it was stopped: %w; the end of its log %s",
				pid, opts.Socket, why(parent, err, opts.Timeout), log)
		}
	}
}

// stop ends a server that never answered: SIGTERM to its process group
// (Setsid made it the leader), SIGKILL after killGrace, then reaps it.
func stop(ctx context.Context, cmd *exec.Cmd) {
	pid := cmd.Process.Pid
	signalGroup(pid, false)
	grace, cancel := context.WithTimeout(context.WithoutCancel(ctx), killGrace)
	defer cancel()
	var p poller
	for {
		if gone, err := exited(pid); gone || err != nil {
			break
		}
		if p.wait(grace) != nil {
			signalGroup(pid, true)
			break
		}
	}
	_ = cmd.Wait() // Best effort: only reaping; it was stopped on purpose.
}

// why says what ended a wait: the timeout (in words, not "context
// deadline exceeded") or the caller's cancel; other errors are kept.
func why(parent context.Context, err error, timeout time.Duration) error {
	if errors.Is(err, context.DeadlineExceeded) && parent.Err() == nil {
		return fmt.Errorf("no answer within %v (%w)", timeout, err)
	}
	return err
}

// poller paces a wait for something no event announces (a socket that
// starts answering): 1 ms, doubling up to 50 ms, so a fast server is
// seen at once and a slow one costs little.
type poller struct{ d time.Duration }

func (p *poller) wait(ctx context.Context) error {
	p.d = min(max(2*p.d, time.Millisecond), 50*time.Millisecond)
	t := time.NewTimer(p.d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
