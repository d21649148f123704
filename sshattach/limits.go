package sshattach

import (
	"fmt"
	"net"
	"slices"
	"sync"
	"time"

	"charm.land/ssh"
	gossh "golang.org/x/crypto/ssh"
)

// What anyone who can reach the port may cost the server, and how it is
// bounded (A14): handshakes take slots of their own, so strangers that
// open connections and never authenticate cannot keep out a user with a
// key; refusals are logged at a bounded rate; a session's requests
// before its shell are bounded.

const (
	// maxEnv bounds the env requests a session may make; each takes at
	// most maxEnvBytes. More are refused.
	maxEnv      = 64
	maxEnvBytes = 4 << 10
	// logBurst refusals are logged at once, then one per logEvery, the
	// rest counted in the next line that goes out.
	logBurst = 20
	logEvery = 10 * time.Second
)

// connKey is the context value holding a connection's raw net.Conn, from
// accept on, so authorize can tell which connection it authenticates.
type connKey struct{}

// slot is one connection's place: handshaking (counted among
// MaxHandshakes) until a key authenticates it, then counted among
// MaxConns.
type slot struct {
	conn   net.Conn
	authed bool
}

// admitConn lists a new connection among the handshakes. When
// MaxHandshakes are already in progress, the oldest is closed to make
// room: a user's handshake takes well under a second, so one that began
// before all the others is the likeliest to be a stranger's that never
// ends. False once shutdown began.
func (s *Server) admitConn(conn net.Conn) bool {
	var evicted net.Conn
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return false
	}
	if len(s.handshaking) >= s.cfg.MaxHandshakes {
		evicted = s.handshaking[0].conn
		s.handshaking = s.handshaking[1:]
	}
	sl := &slot{conn: conn}
	s.handshaking = append(s.handshaking, sl)
	s.conns[conn] = sl
	s.mu.Unlock()
	if evicted != nil {
		s.refusal(fmt.Sprintf("closed the handshake of %s: %d handshakes in progress, it was the oldest", evicted.RemoteAddr(), s.cfg.MaxHandshakes))
		_ = evicted.Close() // Best effort: its HandleConn ends and releases it.
	}
	return true
}

// authenticated moves conn from the handshakes to the connections served,
// unless MaxConns are already served (false: the key is refused).
func (s *Server) authenticated(ctx ssh.Context) bool {
	conn, _ := ctx.Value(connKey{}).(net.Conn)
	s.mu.Lock()
	defer s.mu.Unlock()
	sl := s.conns[conn]
	if sl == nil {
		return !s.closing // not accepted by acceptLoop (tests' HandleConn): not counted
	}
	if sl.authed {
		return true
	}
	if s.served >= s.cfg.MaxConns {
		return false
	}
	s.handshaking = slices.DeleteFunc(s.handshaking, func(o *slot) bool { return o == sl })
	sl.authed = true
	s.served++
	return true
}

// releaseConn forgets conn once it is served no more.
func (s *Server) releaseConn(conn net.Conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sl := s.conns[conn]
	if sl == nil {
		return
	}
	delete(s.conns, conn)
	if sl.authed {
		s.served--
	} else {
		s.handshaking = slices.DeleteFunc(s.handshaking, func(o *slot) bool { return o == sl })
	}
}

// logLimiter passes logBurst lines at once, then one per logEvery; it
// counts the lines it held back and says so in the next one it passes.
type logLimiter struct {
	mu      sync.Mutex
	tokens  float64
	last    time.Time
	dropped int
}

// allow reports whether a line may go out now, and how many were held
// back since the last one that did.
func (l *logLimiter) allow(now time.Time) (bool, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.last.IsZero() {
		l.tokens = logBurst
	} else {
		l.tokens = min(logBurst, l.tokens+now.Sub(l.last).Seconds()/logEvery.Seconds())
	}
	l.last = now
	if l.tokens < 1 {
		l.dropped++
		return false, 0
	}
	l.tokens--
	n := l.dropped
	l.dropped = 0
	return true, n
}

// refusal logs a line anyone on the network can cause (a refused key, a
// handshake that failed or was closed, a connection over the bound) at
// a bounded rate.
func (s *Server) refusal(msg string) {
	ok, held := s.refusals.allow(time.Now())
	if !ok {
		return
	}
	if held > 0 {
		msg += fmt.Sprintf(" (and %d more refusals not logged)", held)
	}
	s.cfg.Log(msg)
}

// boundedChannel is a session channel whose requests are bounded before
// the library's session handler sees them: it keeps every env request,
// without a limit, until a shell is asked for.
type boundedChannel struct {
	gossh.NewChannel
	s *Server
}

func (c boundedChannel) Accept() (gossh.Channel, <-chan *gossh.Request, error) {
	ch, reqs, err := c.NewChannel.Accept()
	if err != nil {
		return ch, reqs, err
	}
	out := make(chan *gossh.Request)
	// Runs within trackSession, which Serve waits for: adding is safe. It
	// ends when the channel's requests end, which the session handler
	// reads to the end.
	c.s.wg.Go(func() { filterRequests(reqs, out) })
	return ch, out, nil
}

// filterRequests passes reqs on to out, refusing env requests past
// maxEnv or over maxEnvBytes, and closes out once reqs closed.
func filterRequests(reqs <-chan *gossh.Request, out chan<- *gossh.Request) {
	defer close(out)
	envs := 0
	for req := range reqs {
		if req.Type == "env" {
			if envs++; envs > maxEnv || len(req.Payload) > maxEnvBytes {
				if req.WantReply {
					_ = req.Reply(false, nil) // Best effort: the peer may be gone.
				}
				continue
			}
		}
		out <- req
	}
}
