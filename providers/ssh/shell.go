package ssh

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"golang.org/x/crypto/ssh"
)

// sweepShell is a shell kept open on the pane's connection for its sweeps.
// Every new session runs the user's login shell, and bash as sshd's child
// reads ~/.bashrc even for a one-line command: behind a conda, nvm or pyenv
// init, or on a loaded host, that takes seconds, longer than a stage of
// the teardown's signal ladder. The shell pays it once, when the pane
// opens, off the teardown's clock. A sweep it cannot run (its start failed,
// or an earlier script broke it) goes to a session of its own as before.
type sweepShell struct {
	ready chan struct{} // closed once start finished, well or not
	err   error         // set before ready closes: why the shell is unusable

	turn   chan struct{} // one script at a time: held while one runs
	broken error         // guarded by turn: a script that did not finish
	n      int           // guarded by turn: scripts sent, for their end marks
	in     io.Writer
	lines  chan string // what the shell prints, line by line; closed at its end
	sess   *ssh.Session
}

// maxShellLine bounds one line the shell prints; a sweep's pid list of
// maxUsageProcs pids fits many times over.
const maxShellLine = 64 << 10

// startSweepShell opens the shell on client in the background. goFn runs
// its goroutines, owned by the caller: they end once the connection
// closes.
func startSweepShell(client *ssh.Client, goFn func(func())) *sweepShell {
	s := &sweepShell{ready: make(chan struct{}), turn: make(chan struct{}, 1), lines: make(chan string, 16)}
	goFn(func() {
		defer close(s.ready)
		if s.err = s.start(client, goFn); s.err == nil {
			hook("sweep shell ready")
		}
	})
	return s
}

func (s *sweepShell) start(client *ssh.Client, goFn func(func())) error {
	sess, err := client.NewSession()
	if err != nil {
		return fmt.Errorf("open the sweep shell: %w", err)
	}
	in, err := sess.StdinPipe()
	if err == nil {
		var out io.Reader
		if out, err = sess.StdoutPipe(); err == nil {
			if err = sess.Start("exec sh"); err == nil {
				s.sess, s.in = sess, in
				goFn(func() { s.read(out) })
				// The first answer says the rc files are read and sh is up.
				_, err = s.run(context.Background(), "true")
				return err
			}
		}
	}
	_ = sess.Close() // Best effort: it never started.
	return fmt.Errorf("open the sweep shell: %w", err)
}

// read hands on what the shell prints until it ends (the connection's
// close ends it).
func (s *sweepShell) read(out io.Reader) {
	defer close(s.lines)
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 4096), maxShellLine)
	for sc.Scan() {
		s.lines <- sc.Text()
	}
	_ = s.sess.Close() // Best effort: the shell ended, or printed too long a line.
}

// errShellGone: the sweep shell cannot answer any more.
var errShellGone = errors.New("the sweep shell ended")

// run sends script to the shell in a subshell (an exit in it ends only the
// subshell) and returns what it printed before its end mark. When ctx ends
// first the shell is closed: what it printed later would be read as the
// next script's answer.
func (s *sweepShell) run(ctx context.Context, script string) (string, error) {
	s.n++
	mark := fmt.Sprintf("sandmux-sweep-end-%d", s.n)
	if _, err := fmt.Fprintf(s.in, "( %s\n) </dev/null 2>/dev/null\necho %s\n", script, mark); err != nil {
		return "", fmt.Errorf("%w: %v", errShellGone, err)
	}
	var out strings.Builder
	for {
		select {
		case line, ok := <-s.lines:
			if !ok {
				return "", errShellGone
			}
			if line == mark {
				return out.String(), nil
			}
			out.WriteString(line)
			out.WriteByte('\n')
		case <-ctx.Done():
			_ = s.sess.Close() // Best effort: the connection's end closes it too.
			return "", fmt.Errorf("%w: no answer in time: %v", errShellGone, context.Cause(ctx))
		}
	}
}

// sweep runs script in the shell once it is up. ok is false when the shell
// cannot run it and nothing was run: the caller runs it another way. A
// shell still starting when ctx ends is an error, not a fallback: a new
// session would wait on the same rc files.
func (s *sweepShell) sweep(ctx context.Context, script string) (out string, ok bool, err error) {
	select {
	case <-s.ready:
	case <-ctx.Done():
		return "", true, fmt.Errorf("the sweep shell did not start in time: %w", context.Cause(ctx))
	}
	if s.err != nil {
		return "", false, nil
	}
	select {
	case s.turn <- struct{}{}:
	case <-ctx.Done():
		return "", true, fmt.Errorf("an earlier sweep still runs: %w", context.Cause(ctx))
	}
	defer func() { <-s.turn }()
	if s.broken != nil {
		return "", false, nil
	}
	out, err = s.run(ctx, script)
	if err != nil {
		s.broken = err
		return "", ctx.Err() != nil, err
	}
	return out, true, nil
}
