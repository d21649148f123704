package web

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/sandmux/sandmux/attach"
	"github.com/sandmux/sandmux/control"
	"github.com/sandmux/sandmux/termsafe"
)

// Config is how the web client is served.
type Config struct {
	// Listen is the host:port browsers open; port 0 picks one.
	Listen string
	// Tokens are the tokens pages present.
	Tokens *Tokens
	// Events, when set, are the server's events, for notifications.
	Events Events
	// Prefix is what the on-screen prefix button types.
	Prefix []byte
	// Log gets one line per attach, end and refusal.
	Log func(string)
	// MaxConns bounds the pages open at once (A23).
	MaxConns int
	// WriteTimeout bounds the wait for a page to take a frame (A11).
	WriteTimeout time.Duration
	// PingEvery is how often an open page must answer.
	PingEvery time.Duration
	// HelloTimeout bounds the wait for a page's first message.
	HelloTimeout time.Duration
}

// DefaultConfig is the config with every bound set; Listen, Tokens and
// Log are the caller's.
func DefaultConfig() Config {
	return Config{MaxConns: 16, WriteTimeout: 10 * time.Second, PingEvery: 20 * time.Second,
		HelloTimeout: 10 * time.Second, Log: func(string) {}}
}

// Attacher runs one attached client until it ends (server.Server). Once
// ctx ends it finishes the stream soon: a revoked, expired or shut down
// page is closed by that Finish, with the reason (stream.detach).
type Attacher interface {
	Attach(ctx context.Context, st attach.Stream) error
}

// Events is where the server's events come from (control.Hub).
type Events interface {
	Subscribe() *control.Subscription
}

// Protocol is the WebSocket subprotocol a page speaks; it presents its
// token as a second one, tokenProtocol followed by the token, so that
// the token is in no URL a proxy could log.
const (
	Protocol      = "sandmux.v1"
	tokenProtocol = "sandmux.token."
)

//go:embed page.html
var pageHTML []byte

// pagePolicy lets the page run its own script and style only (by their
// hashes), talk to its own origin only, and be framed by nobody. It is
// worked out at the first request, not at start: every sandmux process
// (each ctl call, each client) links this package, and most never serve.
var pagePolicy = sync.OnceValue(func() string {
	hash := func(tag string) string {
		_, rest, ok := bytes.Cut(pageHTML, []byte("<"+tag+">"))
		body, _, closed := bytes.Cut(rest, []byte("</"+tag+">"))
		if !ok || !closed {
			panic("web: page.html has no <" + tag + ">")
		}
		sum := sha256.Sum256(body)
		return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	}
	return "default-src 'none'; script-src " + hash("script") + "; style-src " + hash("style") +
		"; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
})

// Server serves the page and its WebSocket.
type Server struct {
	cfg      Config
	l        net.Listener
	origins  map[string]bool // the hosts an Origin may name; nil: the request's own Host
	refusals *refusals

	mu      sync.Mutex
	pages   int
	closing bool
	wg      sync.WaitGroup // the pages
}

// Listen listens on cfg.Listen and gives the tokens their URL.
func Listen(cfg Config) (*Server, error) {
	if cfg.Tokens == nil {
		return nil, errors.New("web: no tokens")
	}
	l, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("listen for the web client on %s: %w (free the port, or set another [server] http_listen)", cfg.Listen, err)
	}
	s := &Server{cfg: cfg, l: l, refusals: newRefusals(cfg.Log)}
	addr := l.Addr().(*net.TCPAddr)
	host := hostOf(cfg.Listen)
	switch {
	case host == "" || net.ParseIP(host) != nil && net.ParseIP(host).IsUnspecified():
		// Every interface: which name a browser uses is not known here.
		host = "localhost"
	default:
		s.origins = map[string]bool{net.JoinHostPort(host, fmt.Sprint(addr.Port)): true}
		if ip := net.ParseIP(host); host == "localhost" || ip != nil && ip.IsLoopback() {
			for _, h := range []string{"localhost", "127.0.0.1", "::1"} {
				s.origins[net.JoinHostPort(h, fmt.Sprint(addr.Port))] = true
			}
		}
	}
	cfg.Tokens.setBase("http://" + net.JoinHostPort(host, fmt.Sprint(addr.Port)) + "/")
	return s, nil
}

func hostOf(addr string) string {
	h, _, _ := net.SplitHostPort(addr)
	return h
}

// Addr is where the server listens.
func (s *Server) Addr() net.Addr { return s.l.Addr() }

// Serve serves pages until ctx ends, then closes every page and waits
// for them. Each page is a client of a.
func (s *Server) Serve(ctx context.Context, a Attacher) error {
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", s.servePage)
	mux.HandleFunc("/ws", func(w http.ResponseWriter, r *http.Request) { s.serveSocket(ctx, a, w, r) })
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 16 << 10,
		ErrorLog: log.New(logWriter(s.cfg.Log), "", 0), BaseContext: func(net.Listener) context.Context { return ctx }}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(s.l) }() // Joined below: Shutdown ends it.
	<-ctx.Done()
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	err := hs.Shutdown(sctx)
	if serr := <-served; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	s.wg.Wait() // the pages: their contexts ended with ctx
	return err
}

// servePage serves the one page: static, no data and no secret in it.
func (s *Server) servePage(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "only GET", http.StatusMethodNotAllowed)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", pagePolicy())
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	_, _ = w.Write(pageHTML) // Best effort: a browser that went needs no page.
}

// serveSocket admits a page: its token first (401 before anything else),
// then its Origin (403), then a free slot (503).
func (s *Server) serveSocket(ctx context.Context, a Attacher, w http.ResponseWriter, r *http.Request) {
	from := "web from " + r.RemoteAddr
	info, ok := s.cfg.Tokens.check(presented(r))
	if !ok {
		s.refusals.add(fmt.Sprintf("refused %s: no valid token", from))
		http.Error(w, "sandmux: a valid token is needed: open the URL sandmux ctl token new prints", http.StatusUnauthorized)
		return
	}
	who := fmt.Sprintf("web %q (token %s) from %s", info.Name, info.ID, r.RemoteAddr)
	if origin := r.Header.Get("Origin"); !s.originAllowed(origin, r.Host) {
		s.refusals.add(fmt.Sprintf("refused %s: Origin %s is not this server's", who, termsafe.String(cut(origin, 100))))
		http.Error(w, "sandmux: this page's origin may not attach", http.StatusForbidden)
		return
	}
	if !s.enter() {
		s.refusals.add(fmt.Sprintf("refused %s: already serving %d pages", who, s.cfg.MaxConns))
		http.Error(w, "sandmux: too many pages open, or shutting down", http.StatusServiceUnavailable)
		return
	}
	defer s.leave()
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		Subprotocols: []string{Protocol},
		// The Origin was checked above, against the listen address
		// rather than the Host header a page's own name sets.
		InsecureSkipVerify: true,
	})
	if err != nil {
		s.refusals.add(fmt.Sprintf("refused %s: %s", who, termsafe.Message(err.Error())))
		return
	}
	c.SetReadLimit(maxMessage)
	s.runPage(ctx, a, c, info, who)
}

// presented is the token a request presents in its subprotocols.
func presented(r *http.Request) string {
	for _, v := range r.Header.Values("Sec-WebSocket-Protocol") {
		for _, p := range strings.Split(v, ",") {
			if tok, ok := strings.CutPrefix(strings.TrimSpace(p), tokenProtocol); ok {
				return tok
			}
		}
	}
	return ""
}

// originAllowed: no Origin is a client that is no browser page (it has
// the token all the same); a browser's must name this server as it
// listens, or, listening on every interface, the Host it asked for.
func (s *Server) originAllowed(origin, host string) bool {
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return false
	}
	if s.origins == nil {
		return strings.EqualFold(u.Host, host)
	}
	h, p, err := net.SplitHostPort(u.Host)
	if err != nil {
		return false
	}
	return s.origins[net.JoinHostPort(strings.ToLower(h), p)]
}

func (s *Server) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing || s.pages >= s.cfg.MaxConns {
		return false
	}
	s.pages++
	s.wg.Add(1)
	return true
}

func (s *Server) leave() {
	s.mu.Lock()
	s.pages--
	s.mu.Unlock()
	s.wg.Done()
}

type logWriter func(string)

func (f logWriter) Write(p []byte) (int, error) {
	f(termsafe.String(strings.TrimRight(string(p), "\n")))
	return len(p), nil
}
