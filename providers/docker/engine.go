package docker

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"
)

// engine is one connection to a Docker engine: the API client and the dials
// it has in flight, so that closing it leaves no connection attempt behind.
type engine struct {
	*client.Client
	host  string
	dials sync.WaitGroup
}

// testHookDial, when set by a test, runs inside every dial to the engine
// with the dial's context: a gate to cancel Open while it connects.
var testHookDial func(ctx context.Context)

// engineHost returns the address to dial: the option, else $DOCKER_HOST,
// else the platform's default socket.
func engineHost(option string) string {
	if option != "" {
		return option
	}
	if h := os.Getenv("DOCKER_HOST"); h != "" {
		return h
	}
	return client.DefaultDockerHost
}

// connect dials the engine at host and checks that it answers, negotiating
// the API version (the client speaks 1.40 and later), all within timeout
// (the connect_timeout option). TLS settings come from DOCKER_TLS_VERIFY
// and DOCKER_CERT_PATH, as for the docker CLI.
func connect(ctx context.Context, host string, timeout time.Duration) (*engine, error) {
	if err := checkHost(host); err != nil {
		return nil, err
	}
	u, err := client.ParseHostURL(host)
	if err != nil {
		return nil, err
	}
	if timeout <= 0 {
		timeout = DefaultConnectTimeout
	}
	e := &engine{host: host}
	d := net.Dialer{Timeout: timeout}
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		e.dials.Add(1)
		defer e.dials.Done()
		if hook := testHookDial; hook != nil {
			hook(ctx)
		}
		if u.Scheme == "unix" {
			network, addr = "unix", u.Host
		}
		return d.DialContext(ctx, network, addr)
	}
	c, err := client.New(
		client.WithTLSClientConfigFromEnv(),
		client.WithHost(host),
		client.WithAPIVersionFromEnv(),
		client.WithDialContext(dial),
	)
	if err != nil {
		return nil, fmt.Errorf("set up a client for the docker engine at %s: %w", host, err)
	}
	e.Client = c
	pctx, cancel := context.WithTimeoutCause(ctx, timeout, errNoAnswer)
	defer cancel()
	if _, err := c.Ping(pctx, client.PingOptions{NegotiateAPIVersion: true}); err != nil {
		e.close()
		switch {
		case ctx.Err() != nil:
			return nil, context.Cause(ctx)
		case errors.Is(context.Cause(pctx), errNoAnswer):
			return nil, fmt.Errorf("reach the docker engine at %s: %w within connect_timeout = %v (check that a docker engine, not something else, listens there; set DOCKER_HOST or the host option to the right address)", host, errNoAnswer, timeout)
		}
		return nil, fmt.Errorf("reach the docker engine at %s: %w (is it running? set DOCKER_HOST or the host option to the right address)", host, err)
	}
	return e, nil
}

// errNoAnswer is wrapped by the error of a connect that timed out.
var errNoAnswer = errors.New("no answer")

// close drops idle connections, which also cancels dials nobody waits for,
// and waits until no dial is in flight.
func (e *engine) close() {
	_ = e.Client.Close() // Best effort: it only closes idle connections.
	e.dials.Wait()
}

// helperResult is what a helper program printed.
type helperResult struct {
	Stdout, Stderr string
}

// run runs argv in container cid as user ("" for the container's user),
// without a terminal, and returns its output once it ends.
func (e *engine) run(ctx context.Context, cid, user string, argv []string) (helperResult, error) {
	ex, err := e.ExecCreate(ctx, cid, client.ExecCreateOptions{
		User: user, AttachStdout: true, AttachStderr: true, Cmd: argv,
	})
	if err != nil {
		return helperResult{}, fmt.Errorf("create helper exec %q: %w", argv[0], err)
	}
	att, err := e.ExecAttach(ctx, ex.ID, client.ExecAttachOptions{})
	if err != nil {
		return helperResult{}, fmt.Errorf("start helper exec %q: %w", argv[0], err)
	}
	// Reading the output is the only wait: closing the connection when ctx
	// ends is what stops it.
	stop := context.AfterFunc(ctx, func() { _ = att.Conn.Close() })
	var out, errOut bytes.Buffer
	_, copyErr := stdcopy.StdCopy(&out, &errOut, att.Reader)
	stop()
	_ = att.Conn.Close() // Best effort: the output is all read.
	if ctx.Err() != nil {
		return helperResult{}, context.Cause(ctx)
	}
	if copyErr != nil {
		return helperResult{}, fmt.Errorf("read helper exec %q output: %w", argv[0], copyErr)
	}
	return helperResult{Stdout: out.String(), Stderr: strings.TrimSpace(errOut.String())}, nil
}

// gone reports whether err says the container or exec no longer exists or
// no longer runs: for a signal or a check, the goal is already reached.
func gone(err error) bool {
	return cerrdefs.IsNotFound(err) || cerrdefs.IsConflict(err)
}

// ErrHelperFailed is wrapped by errors from the shell scripts sandmux runs
// inside a container to signal or find a session's processes.
var ErrHelperFailed = errors.New("helper script failed inside the container")
