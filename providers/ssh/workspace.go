package ssh

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"sync"

	"golang.org/x/crypto/ssh"

	"github.com/sandmux/sandmux/providers"
)

var _ providers.Workspace = (*Provider)(nil)

// ExportWorkspace writes the spec's remote workspace to w as a tar stream
// rooted at ".", by running tar on the host over a new connection. GNU tar
// dereferences hard links (snapshots cannot rebuild them from a stream);
// another tar sends them as links. The remote login shell must be POSIX. It returns only after it stopped writing
// to w: a cancelled ctx or a failed write closes the connection.
func (p *Provider) ExportWorkspace(ctx context.Context, spec providers.Spec, w io.Writer) error {
	dir, err := remoteDir(spec)
	if err != nil {
		return err
	}
	// GNU tar exits 1 when a file changed while it was read; the stream is
	// still whole, and a workspace in use must still get a snapshot.
	// A missing workspace exits with its own status, so that a restore can
	// tell it from a failure to read one (providers.ErrNoWorkspace).
	cmd := fmt.Sprintf("{ [ -e %[1]s ] || exit %[2]d; } && cd -- %[1]s && if tar --version 2>/dev/null | grep -q GNU; then "+
		"tar --hard-dereference -cf - .; s=$?; [ $s -eq 1 ] && s=0; exit $s; else exec tar -cf - .; fi", quote(dir), exitNoWorkspace)
	err = p.runTar(ctx, spec, "export workspace", cmd, nil, w)
	var exit *ssh.ExitError
	if errors.As(err, &exit) && exit.ExitStatus() == exitNoWorkspace {
		return fmt.Errorf("export workspace of %q: %s: %w", spec.Name, dir, providers.ErrNoWorkspace)
	}
	return err
}

// exitNoWorkspace is the export command's status when the workspace is
// missing: one no tar or shell uses.
const exitNoWorkspace = 66

// ImportWorkspace replaces the spec's remote workspace with the tar stream
// r. The stream is unpacked beside the workspace (DIR.sandmux-import) and
// swapped in by a second command only once tar succeeded, so a broken or
// cancelled stream leaves the workspace as it was. r is expected to be
// checked already (snapshot restores only archives it verified); the
// remote tar is GNU's or BSD's, with their own guards against absolute
// and ".." names. It returns once it stopped reading r: a caller that
// cancels must also make a blocked r.Read return (close its pipe).
func (p *Provider) ImportWorkspace(ctx context.Context, spec providers.Spec, r io.Reader) error {
	dir, err := remoteDir(spec)
	if err != nil {
		return err
	}
	tmp, old := quote(dir+".sandmux-import"), quote(dir+".sandmux-old")
	unpack := fmt.Sprintf("rm -rf -- %[1]s && mkdir -p -- %[1]s && { tar -C %[1]s -xf - || { s=$?; rm -rf -- %[1]s; exit $s; }; }", tmp)
	if err := p.runTar(ctx, spec, "import workspace", unpack, r, nil); err != nil {
		return err
	}
	swap := fmt.Sprintf("rm -rf -- %[2]s && { [ ! -e %[3]s ] || mv -- %[3]s %[2]s; } && mv -- %[1]s %[3]s && rm -rf -- %[2]s", tmp, old, quote(dir))
	return p.runTar(ctx, spec, "swap in the imported workspace", swap, nil, nil)
}

// remoteDir returns the spec's workspace, refusing the ones whose
// replacement would be a disaster.
func remoteDir(spec providers.Spec) (string, error) {
	if spec.Dir == "" {
		return "", fmt.Errorf("workspace of %q: none is set (set workspace for the sandbox)", spec.Name)
	}
	dir := path.Clean(spec.Dir)
	if dir == "/" || dir == "." || dir == ".." || strings.HasPrefix(dir, "../") {
		return "", fmt.Errorf("workspace of %q: %q is not a directory sandmux may read or replace (choose one below the remote home or /)", spec.Name, spec.Dir)
	}
	return dir, nil
}

// runTar connects and runs one command, feeding in and copying its output
// to out (either may be nil).
func (p *Provider) runTar(ctx context.Context, spec providers.Spec, what, cmd string, in io.Reader, out io.Writer) error {
	o, err := ParseOptions(spec.Options)
	if err != nil {
		return fmt.Errorf("%s of %q: %w", what, spec.Name, err)
	}
	client, err := p.dial(ctx, o)
	if err != nil {
		return fmt.Errorf("%s of %q: %w", what, spec.Name, err)
	}
	defer closeClient(client)
	if err := run(ctx, client, cmd, in, out); err != nil {
		return fmt.Errorf("%s of %q on %s: %w", what, spec.Name, o.Addr(), err)
	}
	return nil
}

// run runs cmd on a new session of client. It returns only after every
// copy it started has stopped; a cancelled ctx or a failed copy closes the
// connection, so the remote side cannot keep it waiting.
func run(ctx context.Context, client *ssh.Client, cmd string, in io.Reader, out io.Writer) error {
	abort := func() { _ = client.Close() } // Best effort: closing twice is harmless.
	disarm := closeOnCancel(ctx, abort)
	defer disarm()
	cause := func() error {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		return nil
	}
	sess, err := client.NewSession()
	if err != nil {
		return errors.Join(cause(), fmt.Errorf("open a session: %w", err))
	}
	defer sess.Close() // Best effort: the session normally closed already.
	var stderr tail
	sess.Stderr = &stderr
	stdin, stdout, err := pipes(sess, in, out)
	if err != nil {
		return err
	}
	if err := sess.Start(cmd); err != nil {
		return errors.Join(cause(), fmt.Errorf("start %q: %w", cmd, err))
	}
	var wg sync.WaitGroup
	var inErr, outErr error
	if stdin != nil {
		wg.Go(func() {
			if inErr = copyInto(stdin, in); inErr != nil {
				abort()
			}
		})
	}
	if stdout != nil {
		wg.Go(func() {
			if _, outErr = io.Copy(out, stdout); outErr != nil {
				abort()
			}
		})
	}
	waitErr := sess.Wait()
	wg.Wait()
	return runResult(cause(), outErr, waitErr, inErr, &stderr)
}

// pipes connects the session's stdin and stdout for the streams run was
// given; either may be nil.
func pipes(sess *ssh.Session, in io.Reader, out io.Writer) (io.WriteCloser, io.Reader, error) {
	var stdin io.WriteCloser
	var stdout io.Reader
	var err error
	if in != nil {
		if stdin, err = sess.StdinPipe(); err != nil {
			return nil, nil, fmt.Errorf("connect stdin: %w", err)
		}
	}
	if out != nil {
		if stdout, err = sess.StdoutPipe(); err != nil {
			return nil, nil, fmt.Errorf("connect stdout: %w", err)
		}
	}
	return stdin, stdout, nil
}

// runResult picks the error run reports once the command and its copies
// stopped, a cause before its effects: a cancel or a failed write closes
// the connection, failing the wait, and a failed command stops reading
// what is sent.
func runResult(cause, outErr, waitErr, inErr error, stderr *tail) error {
	var exit *ssh.ExitError
	switch {
	case cause != nil:
		return cause
	case outErr != nil:
		return fmt.Errorf("write the stream: %w", outErr)
	case errors.As(waitErr, &exit):
		return &remoteFailure{exit: exit, msg: fmt.Sprintf("remote command failed (%s): %s", exitStatus(exit), stderr.String())}
	case waitErr != nil:
		return fmt.Errorf("remote command: %w", waitErr)
	case inErr != nil:
		return fmt.Errorf("send the stream: %w", inErr)
	}
	return nil
}

// remoteFailure is a remote command that exited unsuccessfully; it
// unwraps to the *ssh.ExitError so callers can read the status.
type remoteFailure struct {
	exit *ssh.ExitError
	msg  string
}

func (e *remoteFailure) Error() string { return e.msg }
func (e *remoteFailure) Unwrap() error { return e.exit }

// tail keeps the last bytes written to it: enough of a remote command's
// stderr to say why it failed.
type tail struct{ b []byte }

const tailMax = 2048

func (t *tail) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > tailMax {
		t.b = t.b[len(t.b)-tailMax:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	if s := strings.TrimSpace(string(t.b)); s != "" {
		return s
	}
	return "no message"
}
