package sshattach

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"charm.land/ssh"
	"github.com/sandmux/sandmux/attach"
	"github.com/sandmux/sandmux/termsafe"
	gossh "golang.org/x/crypto/ssh"
)

// Attacher runs a client's UI over a stream until it detaches or the
// server quits, and has called st.Finish by the time it returns. It must
// return once ctx ends or st's Read returns an error.
type Attacher interface {
	Attach(ctx context.Context, st attach.Stream) error
}

// Server is a listening SSH endpoint. New listens; Serve serves.
type Server struct {
	cfg  Config
	keys keyFiles
	ln   net.Listener
	ssh  *ssh.Server

	// Set by Serve before the first connection is accepted.
	ctx      context.Context
	attacher Attacher
	serving  atomic.Bool // Serve runs once

	refusals logLimiter // lines strangers can cause

	mu          sync.Mutex
	closing     bool               // no goroutine may start once set
	conns       map[net.Conn]*slot // raw connections, handshakes included
	handshaking []*slot            // not authenticated yet, oldest first
	served      int                // connections authenticated
	sessions    int                // session channels open
	ptys        map[ssh.Session]*terminal
	wg          sync.WaitGroup // every goroutine sshattach starts or hosts
}

// New checks cfg, reads the key files, loads (or generates) the host key
// and listens, so that a bad file or an address in use is an error before
// the caller reports the server started. Call Serve next, even with an
// ended context, to release the listener.
func New(cfg Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	keys := keyFiles{readWrite: cfg.AuthorizedKeys, readOnly: cfg.ReadOnlyKeys}
	if err := keys.check(); err != nil {
		return nil, err
	}
	if cfg.HostKeyPath == "" {
		path, err := DefaultHostKeyPath()
		if err != nil {
			return nil, err
		}
		cfg.HostKeyPath = path
	}
	signer, err := loadHostKey(cfg.HostKeyPath)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("ssh: listen on %s: %w (change server.ssh_listen, or stop what uses it)", cfg.Listen, err)
	}
	s := &Server{
		cfg:   cfg,
		keys:  keys,
		ln:    ln,
		conns: map[net.Conn]*slot{},
		ptys:  map[ssh.Session]*terminal{},
	}
	s.ssh = s.newSSH(signer)
	return s, nil
}

// Addr is the address the server listens on (its port, when Listen asked
// for port 0).
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// HostKeyPath is the host key file in use.
func (s *Server) HostKeyPath() string { return s.cfg.HostKeyPath }

// newSSH configures the ssh server: public-key auth only (no password, no
// keyboard-interactive, no "none"), session channels only, no forwarding,
// no global requests. It is charm.land/ssh's server as it is: wish's
// options only set these fields, and linking wish would link its logger,
// whose colour detection runs in every sandmux process at start (see
// ui's pen).
func (s *Server) newSSH(signer gossh.Signer) *ssh.Server {
	srv := &ssh.Server{
		Version:          "sandmux",
		PublicKeyHandler: s.authorize,
		IdleTimeout:      s.cfg.IdleTimeout,
		Handler:          s.handleSession,
		PtyHandler:       s.recordPty,
		HandshakeTimeout: s.cfg.HandshakeTimeout,
		ServerConfigCallback: func(ssh.Context) *gossh.ServerConfig {
			return &gossh.ServerConfig{MaxAuthTries: 6}
		},
		ConnectionFailedCallback: func(c net.Conn, err error) {
			s.refusal(fmt.Sprintf("ssh connection from %s ended before attaching: %s", c.RemoteAddr(), termsafe.Message(err.Error())))
		},
		ConnCallback: func(ctx ssh.Context, c net.Conn) net.Conn {
			ctx.SetValue(connKey{}, c)
			return c
		},
		ChannelHandlers: map[string]ssh.ChannelHandler{"session": s.trackSession},
		RequestHandlers: map[string]ssh.RequestHandler{},
	}
	srv.AddHostKey(signer)
	return srv
}

// Serve accepts connections until ctx ends, then stops listening, lets
// clients hang up for Config.ShutdownGrace, closes every connection left,
// and returns once every goroutine it started, every Attach call
// included, has returned. It returns nil after ctx ended, or the error
// that stopped accepting. Serve runs once per Server.
func (s *Server) Serve(ctx context.Context, a Attacher) error {
	if !s.serving.CompareAndSwap(false, true) {
		return errors.New("ssh: Serve called twice: make a new Server with New")
	}
	// Ending this context also ends every Attach, whatever stopped Serve.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.ctx, s.attacher = ctx, a
	acceptErr := make(chan error, 1)
	s.wg.Go(func() { acceptErr <- s.acceptLoop(ctx) })
	var err error
	select {
	case <-ctx.Done():
	case err = <-acceptErr:
	}
	cancel()
	s.shutdown()
	return err
}

// acceptLoop serves each connection on a goroutine of its own: at most
// MaxHandshakes handshaking (a new one closes the oldest) and MaxConns
// authenticated (authorize refuses a key past that).
func (s *Server) acceptLoop(ctx context.Context) error {
	var delay time.Duration
	for {
		conn, err := s.ln.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() || isTemporary(err) {
				// Out of file descriptors and the like: wait, then retry.
				delay = min(max(2*delay, 5*time.Millisecond), time.Second)
				select {
				case <-time.After(delay):
					continue
				case <-ctx.Done():
					return nil
				}
			}
			return fmt.Errorf("ssh: accept on %s: %w", s.ln.Addr(), err)
		}
		delay = 0
		if !s.admitConn(conn) {
			_ = conn.Close() // Best effort: the server is shutting down.
			return nil
		}
		s.wg.Go(func() {
			defer s.releaseConn(conn)
			s.ssh.HandleConn(conn)
		})
	}
}

// isTemporary reports an accept error worth retrying (EMFILE, ENFILE,
// ECONNABORTED), which net still marks Temporary.
func isTemporary(err error) bool {
	t, ok := err.(interface{ Temporary() bool })
	return ok && t.Temporary()
}

// shutdown stops listening, waits up to ShutdownGrace for clients to hang
// up (a client told its exit status leaves by itself, and closing its
// connection first could lose the summary it has yet to read), then
// closes what is left and waits for every goroutine.
func (s *Server) shutdown() {
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	_ = s.ln.Close() // Best effort: an error means it is closed already.

	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }() // Joined below: done closes.
	grace := time.NewTimer(s.cfg.ShutdownGrace)
	defer grace.Stop()
	select {
	case <-done:
		return
	case <-grace.C:
	}
	s.mu.Lock()
	for c := range s.conns {
		_ = c.Close() // Best effort: a failing close is closed enough.
	}
	s.mu.Unlock()
	<-done
}
