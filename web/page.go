package web

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/sandmux/sandmux/attach"
	"github.com/sandmux/sandmux/control"
	"github.com/sandmux/sandmux/termsafe"
)

// runPage serves one admitted page: its hello, then the attach, with
// the stream's reader, writer and pinger (and its notifications) on
// goroutines it waits for. The page's context ends at its token's
// expiry; a revocation closes it at once.
func (s *Server) runPage(ctx context.Context, a Attacher, c *websocket.Conn, info control.TokenInfo, who string) {
	defer c.CloseNow() // Best effort: closed already on every normal path.
	ctx, cancel := context.WithDeadline(ctx, info.Expires)
	defer cancel()
	hello, err := readHello(ctx, c, s.cfg.HelloTimeout)
	if err != nil {
		s.cfg.Log(fmt.Sprintf("refused %s: %s", who, termsafe.Message(err.Error())))
		_ = c.Close(closeBadMsg, cut(err.Error(), 100)) // Best effort: refused either way.
		return
	}
	h := attach.Hello{Size: attach.Size{Width: hello.Cols, Height: hello.Rows}, ReadOnly: info.ReadOnly,
		Term: "xterm-256color", ColorTerm: "truecolor", Who: who}
	st := newStream(ctx, c, h, s.cfg.Prefix, s.cfg.WriteTimeout)
	defer st.endAttach()
	// A revocation, an expiry or a shutdown ends the attach (detach),
	// which then closes the page with the reason.
	pg := &page{close: func(why string) { st.detach(closeRevoked, why) }}
	if !s.cfg.Tokens.open(info.ID, pg) {
		st.detach(closeRevoked, "token revoked")
	}
	defer s.cfg.Tokens.closed(info.ID, pg)
	stopExpiry := context.AfterFunc(ctx, func() {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			st.detach(closeRevoked, "token expired")
		}
		st.detach(websocket.StatusGoingAway, "the server stopped")
	})
	defer stopExpiry()

	var wg sync.WaitGroup
	wg.Go(func() { st.read(context.WithoutCancel(ctx)) })
	wg.Go(st.write)
	wg.Go(func() { st.ping(s.cfg.PingEvery) })
	if s.cfg.Events != nil {
		sub := s.cfg.Events.Subscribe() // before the attach: no state change is missed
		wg.Go(func() { notifyPage(st, s.cfg.Events, sub) })
	}
	access := "read-write"
	if info.ReadOnly {
		access = "read-only"
	}
	s.cfg.Log(fmt.Sprintf("attached %s (%s, %dx%d)", who, access, h.Size.Width, h.Size.Height))
	if err := a.Attach(st.attachCtx, st); err != nil && !st.endedAsMeant() {
		s.cfg.Log(fmt.Sprintf("attach of %s failed: %s", who, termsafe.Message(err.Error())))
	}
	_ = st.Finish(attach.Exit{Code: 1, Summary: "sandmux: the server ended this attachment"}) // Best effort: normally finished already.
	verb, e, why := "ended", st.exit(), ""
	if e.Detached {
		verb = "detached"
	}
	if cause, ok := context.Cause(st.ctx).(*ending); ok && cause.code != websocket.StatusNormalClosure {
		why = ", " + cause.reason
	}
	wg.Wait()
	s.cfg.Log(fmt.Sprintf("%s %s (exit %d%s)", verb, who, e.Code, why))
}

// readHello waits for the page's first message, which says its size.
func readHello(ctx context.Context, c *websocket.Conn, timeout time.Duration) (message, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	typ, b, err := c.Read(ctx)
	if err != nil {
		return message{}, fmt.Errorf("no hello within %v: %w", timeout, err)
	}
	m, err := decode(b)
	if err == nil && (typ != websocket.MessageText || m.T != kindHello) {
		err = errors.New("the first message must be a hello")
	}
	return m, err
}

// notifyPage tells the page of every pane that enters waiting, done or
// failed, in the words of the terminal's notification; the page shows it
// when it is not in front. A subscription the hub dropped (the page fell
// a whole queue behind) is taken again.
func notifyPage(st *stream, events Events, sub *control.Subscription) {
	for {
		notifyFrom(st, sub)
		sub.Close()
		if st.ctx.Err() != nil {
			return
		}
		sub = events.Subscribe()
	}
}

func notifyFrom(st *stream, sub *control.Subscription) {
	for {
		select {
		case <-st.ctx.Done():
			return
		case <-sub.Dropped():
			return
		case e := <-sub.Events():
			if text, ok := notice(e); ok {
				st.notify(text)
			}
		}
	}
}

// notice is the text of the notification an event makes, if any: "NAME
// is STATE", then ": REASON" when there is one, as ui's notify writes it.
func notice(e control.Event) (string, bool) {
	if e.Kind != control.EventState || e.Session == nil {
		return "", false
	}
	switch e.Session.State {
	case "waiting", "done", "failed":
	default:
		return "", false
	}
	text := fmt.Sprintf("%s is %s", e.Session.Name, e.Session.State)
	if e.Session.Reason != "" {
		text += ": " + e.Session.Reason
	}
	return cut(text, 300), true
}

// refusals logs refused pages at a bounded rate (A23): logBurst at once,
// then one per logEvery, with a count of those held back.
type refusals struct {
	log func(string)

	mu      sync.Mutex
	tokens  int
	last    time.Time
	dropped int
}

const (
	logBurst = 20
	logEvery = 10 * time.Second
)

func newRefusals(log func(string)) *refusals { return &refusals{log: log, tokens: logBurst} }

func (r *refusals) add(line string) {
	r.mu.Lock()
	now := time.Now()
	if r.tokens < logBurst && now.Sub(r.last) >= logEvery {
		r.tokens += int(now.Sub(r.last) / logEvery)
		r.tokens = min(r.tokens, logBurst)
		r.last = now
	}
	if r.tokens == 0 {
		r.dropped++
		r.mu.Unlock()
		return
	}
	if r.tokens == logBurst {
		r.last = now
	}
	r.tokens--
	if r.dropped > 0 {
		line += fmt.Sprintf(" (and %d refusals not logged)", r.dropped)
		r.dropped = 0
	}
	r.mu.Unlock()
	r.log(line)
}
