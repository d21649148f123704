package sshattach

import (
	"context"
	"fmt"
	"net"
	"strings"
	"time"

	"charm.land/ssh"
	"github.com/sandmux/sandmux/attach"
	"github.com/sandmux/sandmux/termsafe"
	gossh "golang.org/x/crypto/ssh"
)

// accessExt carries a connection's access from authentication to its
// sessions, in the permissions of the key that authenticated.
const accessExt = "sandmux-access"

// authorize decides one offered key. A client may offer several keys; each
// refusal is logged with the key's fingerprint, so an operator can tell
// which key to add.
func (s *Server) authorize(ctx ssh.Context, key ssh.PublicKey) bool {
	acc, err := s.keys.access(key)
	who := describe(ctx.User(), key, ctx.RemoteAddr())
	switch {
	case err != nil:
		s.refusal(fmt.Sprintf("refused %s: %s", who, termsafe.Message(err.Error())))
		return false
	case acc == denied:
		s.refusal(fmt.Sprintf("refused %s: key is in neither the authorized nor the read-only keys", who))
		return false
	case !s.authenticated(ctx):
		s.refusal(fmt.Sprintf("refused %s: already serving %d connections", who, s.cfg.MaxConns))
		return false
	}
	perms := ctx.Permissions()
	if perms.Extensions == nil {
		perms.Extensions = map[string]string{}
	}
	perms.Extensions[accessExt] = acc.String()
	return true
}

// describe names a client for logs and Hello.Who: "ssh alice SHA256:… from
// 127.0.0.1:5555", the user name escaped and cut short.
func describe(user string, key gossh.PublicKey, addr net.Addr) string {
	const maxUser = 64
	if len(user) > maxUser {
		user = user[:maxUser] + "…"
	}
	fp := "(no key)"
	if key != nil {
		fp = gossh.FingerprintSHA256(key)
	}
	return fmt.Sprintf("ssh %s %s from %s", termsafe.String(user), fp, addr)
}

// trackSession opens a session channel on a goroutine Serve waits for,
// refusing one beyond MaxConns sessions in all.
func (s *Server) trackSession(srv *ssh.Server, conn *gossh.ServerConn, ch gossh.NewChannel, ctx ssh.Context) {
	if !s.enterSession() {
		_ = ch.Reject(gossh.ResourceShortage, "sandmux: too many sessions, or shutting down") // Best effort: the peer may be gone.
		return
	}
	defer s.leaveSession()
	ssh.DefaultSessionHandler(srv, conn, boundedChannel{NewChannel: ch, s: s}, ctx)
}

func (s *Server) enterSession() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing || s.sessions >= s.cfg.MaxConns {
		return false
	}
	s.sessions++
	s.wg.Add(1)
	return true
}

func (s *Server) leaveSession() {
	s.mu.Lock()
	s.sessions--
	s.mu.Unlock()
	s.wg.Done()
}

// terminal is what a session's pty request said, and its window changes.
type terminal struct {
	pty      ssh.Pty
	sizes    chan attach.Size
	finished chan struct{} // closed by the stream's Finish
}

// recordPty keeps a session's pty request for attachSession and starts
// taking its window changes. It takes the place of the library's pty
// emulation, which rewrites every "\n" written to the session as "\r\n":
// the UI's output must reach the remote terminal, raw like a local one,
// byte for byte.
func (s *Server) recordPty(_ ssh.Context, sess ssh.Session, pty ssh.Pty) (func() error, error) {
	term := &terminal{pty: pty, sizes: make(chan attach.Size, 1), finished: make(chan struct{})}
	_, winch, _ := sess.Pty()
	// Runs within trackSession, which Serve waits for: adding is safe.
	s.wg.Go(func() { forwardSizes(winch, term.sizes, term.finished) })
	s.mu.Lock()
	s.ptys[sess] = term
	s.mu.Unlock()
	return func() error {
		s.mu.Lock()
		delete(s.ptys, sess)
		s.mu.Unlock()
		return nil
	}, nil
}

func (s *Server) terminalOf(sess ssh.Session) (*terminal, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	term, ok := s.ptys[sess]
	return term, ok
}

// handleSession runs one attach: it checks the session is one sandmux can
// draw on, then hands its stream to the Attacher and waits for it.
func (s *Server) handleSession(sess ssh.Session) {
	if !s.runCounted(func() { s.attachSession(sess) }) {
		_ = sess.Exit(1) // Best effort: shutting down, the client goes either way.
	}
}

// runCounted runs f on the calling goroutine, counted among those Serve
// waits for; false when shutdown began and f did not run.
func (s *Server) runCounted(f func()) bool {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return false
	}
	s.wg.Add(1)
	s.mu.Unlock()
	defer s.wg.Done()
	f()
	return true
}

func (s *Server) attachSession(sess ssh.Session) {
	who := describe(sess.User(), sess.PublicKey(), sess.RemoteAddr())
	term, ok := s.terminalOf(sess)
	if !ok {
		s.refuseSession(sess, who, "no terminal requested",
			"sandmux: attaching needs a terminal: run ssh -tt, without a command\r\n")
		return
	}
	if sess.RawCommand() != "" || sess.Subsystem() != "" {
		s.refuseSession(sess, who, "a command was given",
			"sandmux: commands are not run over ssh: run ssh -tt, without a command\r\n")
		return
	}
	acc := accessOf(sess)
	if acc == denied {
		// Cannot happen: authentication records the access of every key it lets in.
		s.refuseSession(sess, who, "no access recorded", "sandmux: not allowed\r\n")
		return
	}
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	// The client going away ends the attach as its Read returning EOF does.
	defer context.AfterFunc(sess.Context(), cancel)()

	conn, _ := sess.Context().Value(ssh.ContextKeyConn).(gossh.Conn)
	cut := func() {
		if conn != nil {
			_ = conn.Close() // Best effort: a connection that fails to close is closed enough.
		}
	}
	st := newStream(sess, hello(sess, term.pty, acc, who), term.sizes, term.finished, s.cfg.WriteTimeout, cut)
	if conn != nil {
		s.wg.Go(func() { keepAlive(ctx, conn, s.cfg.KeepAlive) })
	}
	h := st.Hello()
	s.cfg.Log(fmt.Sprintf("attached %s (%s, TERM %s, %dx%d)", who, acc, termsafe.String(h.Term), h.Size.Width, h.Size.Height))
	err := s.attacher.Attach(ctx, st)
	if err != nil {
		s.cfg.Log(fmt.Sprintf("attach of %s failed: %s", who, termsafe.Message(err.Error())))
		_ = st.Finish(attach.Exit{Code: 1, Summary: "sandmux: " + termsafe.Message(err.Error())}) // Best effort: Attach may have finished it.
	}
	// Attach must have called Finish; if it did not, the client still
	// gets an ending instead of a hung terminal.
	_ = st.Finish(attach.Exit{Code: 1, Summary: "sandmux: the server ended this attachment"}) // Best effort: normally finished already.
	verb, e := "ended", st.exit()
	if e.Detached {
		verb = "detached"
	}
	s.cfg.Log(fmt.Sprintf("%s %s (exit %d)", verb, who, e.Code))
}

// refuseSession tells the client why on its terminal, logs it, and exits 1.
func (s *Server) refuseSession(sess ssh.Session, who, why, msg string) {
	s.cfg.Log(fmt.Sprintf("refused %s: %s", who, why))
	_, _ = sess.Stderr().Write([]byte(msg)) // Best effort: the client may be gone.
	_ = sess.Exit(1)                        // Best effort: as above.
}

func accessOf(sess ssh.Session) access {
	switch sess.Permissions().Extensions[accessExt] {
	case readWrite.String():
		return readWrite
	case readOnly.String():
		return readOnly
	}
	return denied
}

// isTermName reports whether s looks like a TERM or COLORTERM value: 1 to
// 64 of letters, digits and ._+-. Anything else from the remote is
// replaced rather than passed on to the UI. (A regexp said the same, but
// its 64-fold repetition compiled to some 60 KB that every sandmux
// process held from its start, the client and the server alike.)
func isTermName(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := range len(s) {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '.', c == '_', c == '+', c == '-':
		default:
			return false
		}
	}
	return true
}

func hello(sess ssh.Session, pty ssh.Pty, acc access, who string) attach.Hello {
	h := attach.Hello{
		Size:     attach.Size{Width: pty.Window.Width, Height: pty.Window.Height},
		ReadOnly: acc != readWrite,
		Term:     pty.Term,
		Who:      who,
	}
	if h.Size.Width <= 0 || h.Size.Height <= 0 {
		h.Size = attach.Size{Width: 80, Height: 24}
	}
	if !isTermName(h.Term) {
		h.Term = "xterm-256color"
	}
	for _, kv := range sess.Environ() {
		if v, ok := strings.CutPrefix(kv, "COLORTERM="); ok && isTermName(v) {
			h.ColorTerm = v
		}
	}
	return h
}

// keepAlive asks the client to answer every interval until ctx ends or
// the connection fails. The answers are what keeps an idle but live
// client under the idle timeout; a client that vanished stops answering
// and its connection times out.
func keepAlive(ctx context.Context, conn gossh.Conn, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		// OpenSSH answers a request it does not know with a failure,
		// which is an answer all the same.
		if _, _, err := conn.SendRequest("keepalive@openssh.com", true, nil); err != nil {
			return
		}
	}
}
