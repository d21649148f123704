package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/sandmux/sandmux/attach"
	"github.com/sandmux/sandmux/control"
)

// fakeAttacher hands each attached stream to the test and types what the
// page sends into inputs, until the page goes or ctx ends; then it
// finishes the stream as the server does.
type fakeAttacher struct {
	streams chan attach.Stream
	inputs  chan string
}

func (f *fakeAttacher) Attach(ctx context.Context, st attach.Stream) error {
	f.streams <- st
	gone := make(chan struct{})
	var reader sync.WaitGroup
	reader.Go(func() { // Joined below: Finish ends the stream's input.
		defer close(gone)
		buf := make([]byte, 4096)
		for {
			n, err := st.Read(buf)
			if n > 0 {
				f.inputs <- string(buf[:n])
			}
			if err != nil {
				return
			}
		}
	})
	select {
	case <-gone:
	case <-ctx.Done():
	}
	err := st.Finish(attach.Exit{Detached: true})
	reader.Wait()
	return err
}

// rig is a web server on a free loopback port, serving until the test
// ends.
type rig struct {
	t      *testing.T
	srv    *Server
	tokens *Tokens
	fake   *fakeAttacher
	// streams are the attached pages' streams, as the attacher gets them.
	streams chan attach.Stream
	hub     *control.Hub
	logMu   sync.Mutex
	logs    []string
}

func newRig(t *testing.T, tune func(*Config)) *rig {
	t.Helper()
	fake := &fakeAttacher{streams: make(chan attach.Stream, 8), inputs: make(chan string, 64)}
	r := newRigOf(t, tune, fake, fake.streams)
	r.fake = fake
	return r
}

// newRigOf is a rig whose pages attach to a, which hands their streams
// to streams.
func newRigOf(t *testing.T, tune func(*Config), a Attacher, streams chan attach.Stream) *rig {
	t.Helper()
	r := &rig{t: t, tokens: NewTokens(), hub: control.NewHub(), streams: streams}
	cfg := DefaultConfig()
	cfg.Listen, cfg.Tokens, cfg.Events, cfg.Prefix = "127.0.0.1:0", r.tokens, r.hub, []byte{2}
	cfg.Log = func(s string) { r.logMu.Lock(); r.logs = append(r.logs, s); r.logMu.Unlock() }
	if tune != nil {
		tune(&cfg)
	}
	srv, err := Listen(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r.srv = srv
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, a) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return r
}

// client keeps no connection alive: each request's goroutines end with it.
var client = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

func (r *rig) base() string { return "http://" + r.srv.Addr().String() }

// token makes a token and returns its ID and secret.
func (r *rig) token(readOnly bool) (string, string) {
	r.t.Helper()
	info, url, err := r.tokens.New("test", readOnly, 0)
	if err != nil {
		r.t.Fatal(err)
	}
	_, secret, ok := strings.Cut(url, "#t=")
	if !ok || !strings.HasPrefix(url, r.base()+"/") {
		r.t.Fatalf("token URL %q", url)
	}
	return info.ID, secret
}

// dial opens a page's socket with the secret and Origin, and says hello.
func (r *rig) dial(secret, origin string) (*websocket.Conn, *http.Response, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	h := http.Header{}
	if origin != "" {
		h.Set("Origin", origin)
	}
	protos := []string{Protocol}
	if secret != "" {
		protos = append(protos, tokenProtocol+secret)
	}
	c, resp, err := websocket.Dial(ctx, "ws://"+r.srv.Addr().String()+"/ws", &websocket.DialOptions{Subprotocols: protos, HTTPHeader: h, HTTPClient: client})
	if err != nil {
		return nil, resp, err
	}
	if err := c.Write(ctx, websocket.MessageText, []byte(`{"t":"hello","cols":100,"rows":30}`)); err != nil {
		return nil, resp, err
	}
	return c, resp, nil
}

func (r *rig) stream() attach.Stream {
	r.t.Helper()
	select {
	case st := <-r.streams:
		return st
	case <-time.After(30 * time.Second):
		r.t.Fatal("no page attached")
		return nil
	}
}

// closeCode reads until the socket closes and returns its close code.
func closeCode(t *testing.T, c *websocket.Conn) (websocket.StatusCode, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		if _, _, err := c.Read(ctx); err != nil {
			var ce websocket.CloseError
			if errors.As(err, &ce) {
				return ce.Code, ce.Reason
			}
			return -1, err.Error()
		}
	}
}

// TestContract_A21_SocketNeedsALiveToken: /ws answers 401 without a
// token, with a wrong, revoked or expired one; the page and 404s hold no
// secret.
func TestContract_A21_SocketNeedsALiveToken(t *testing.T) {
	r := newRig(t, nil)
	revoked, revokedSecret := r.token(false)
	if _, err := r.tokens.Revoke(revoked); err != nil {
		t.Fatal(err)
	}
	_, expiredSecret := r.token(false)
	r.tokens.mu.Lock()
	for _, tok := range r.tokens.byHash {
		if tok.info.ID != revoked {
			tok.info.Expires = time.Now().Add(-time.Second)
		}
	}
	r.tokens.mu.Unlock()
	for name, secret := range map[string]string{"none": "", "wrong": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "revoked": revokedSecret, "expired": expiredSecret} {
		_, resp, err := r.dial(secret, "")
		if err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s token: %v, %v; want 401", name, resp, err)
		}
	}
	for path, want := range map[string]int{"/": 200, "/index.html": 404, "/ws/x": 404, "/../etc/passwd": 404} {
		resp, err := client.Get(r.base() + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s: %d, want %d", path, resp.StatusCode, want)
		}
		if path == "/" && (!strings.Contains(resp.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") || !strings.Contains(string(body), "sandmux")) {
			t.Errorf("the page's headers %v", resp.Header)
		}
	}
	resp, err := client.Post(r.base()+"/", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /: %d", resp.StatusCode)
	}
}

// TestContract_A21_TokensKeptHashed: a token has at least 128 bits, and
// the store holds its hash, never the token.
func TestContract_A21_TokensKeptHashed(t *testing.T) {
	r := newRig(t, nil)
	_, secret := r.token(false)
	if len(secret)*6 < 128 {
		t.Errorf("a token of %d characters", len(secret))
	}
	r.tokens.mu.Lock()
	dump := fmt.Sprintf("%#v %#v", r.tokens.byHash, r.tokens.byID)
	r.tokens.mu.Unlock()
	if strings.Contains(dump, secret) {
		t.Error("the store holds the token itself")
	}
	if _, _, err := r.tokens.New("x", false, 100*24*time.Hour); err == nil {
		t.Error("a token of 100 days was made")
	}
	for _, ti := range r.tokens.List() {
		if d := ti.Expires.Sub(ti.Created); d != DefaultTTL {
			t.Errorf("a token lives %v by default", d)
		}
	}
}

// TestContract_A21_RevokeClosesOpenPages: revoking a token closes its
// pages at once, with a code the page shows, and leaves others open.
func TestContract_A21_RevokeClosesOpenPages(t *testing.T) {
	r := newRig(t, nil)
	id, secret := r.token(false)
	_, other := r.token(false)
	c, _, err := r.dial(secret, "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	r.stream()
	keep, _, err := r.dial(other, "")
	if err != nil {
		t.Fatal(err)
	}
	defer keep.CloseNow()
	kept := r.stream()
	if ls := r.tokens.List(); len(ls) != 2 || ls[0].Pages != 1 {
		t.Errorf("token ls: %+v", ls)
	}
	if _, err := r.tokens.Revoke(id); err != nil {
		t.Fatal(err)
	}
	if code, reason := closeCode(t, c); code != closeRevoked || reason != "token revoked" {
		t.Errorf("the revoked page closed with %d %q", code, reason)
	}
	if _, err := kept.Write([]byte("still here")); err != nil {
		t.Errorf("the other page: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, b, err := keep.Read(ctx); err != nil || string(b) != "still here" {
		t.Errorf("the other page read %q, %v", b, err)
	}
}

// TestContract_A22_OriginMustBeTheServers: a browser page from another
// origin is refused with 403, even with the token.
func TestContract_A22_OriginMustBeTheServers(t *testing.T) {
	r := newRig(t, nil)
	_, secret := r.token(false)
	port := r.srv.Addr().(interface{ String() string }).String()
	port = port[strings.LastIndex(port, ":")+1:]
	for origin, ok := range map[string]bool{
		"http://127.0.0.1:" + port: true, "http://localhost:" + port: true,
		"http://evil.example:" + port: false, "http://127.0.0.1:1": false, "null": false, "file://": false,
	} {
		c, resp, err := r.dial(secret, origin)
		switch {
		case ok && err != nil:
			t.Errorf("Origin %s refused: %v", origin, err)
		case !ok && (err == nil || resp == nil || resp.StatusCode != http.StatusForbidden):
			t.Errorf("Origin %s: %v %v; want 403", origin, resp, err)
		}
		if c != nil {
			r.stream()
			c.Close(websocket.StatusNormalClosure, "")
		}
	}
}

// TestContract_A23_PagesBounded: pages past MaxConns get 503; a message
// past the size limit closes the page; a page that takes nothing is cut
// off without holding up another.
func TestContract_A23_PagesBounded(t *testing.T) {
	r := newRig(t, func(c *Config) { c.MaxConns = 2; c.WriteTimeout = 500 * time.Millisecond })
	_, secret := r.token(false)
	stalled, _, err := r.dial(secret, "")
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.CloseNow()
	stalledSt := r.stream()
	big, _, err := r.dial(secret, "")
	if err != nil {
		t.Fatal(err)
	}
	defer big.CloseNow()
	r.stream()
	if _, resp, err := r.dial(secret, ""); err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("a third page: %v %v; want 503", resp, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = big.Write(ctx, websocket.MessageText, []byte(`{"t":"paste","data":"`+strings.Repeat("x", maxMessage)+`"}`))
	if code, _ := closeCode(t, big); code != websocket.StatusMessageTooBig {
		t.Errorf("a message past the limit closed the page with %d", code)
	}
	// The stalled page reads nothing: its writes fail once the socket's
	// buffers and the queue are full, within the bound.
	frame := []byte(strings.Repeat("y", 1<<20))
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, err := stalledSt.Write(frame); err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a page that reads nothing was never cut off")
		}
	}
	// A page opened now is served at once.
	fresh, _, err := r.dial(secret, "")
	if err != nil {
		t.Fatalf("after the stalled page was cut off: %v", err)
	}
	defer fresh.CloseNow()
	if _, err := r.stream().Write([]byte("ok")); err != nil {
		t.Error(err)
	}
}

// TestContract_A24_ReadOnlyTokenAttachesReadOnly: a read-only token's
// page is a read-only client, and its keys arrive as a terminal's.
func TestContract_A24_ReadOnlyTokenAttachesReadOnly(t *testing.T) {
	r := newRig(t, nil)
	for _, ro := range []bool{false, true} {
		_, secret := r.token(ro)
		c, _, err := r.dial(secret, "")
		if err != nil {
			t.Fatal(err)
		}
		st := r.stream()
		if h := st.Hello(); h.ReadOnly != ro || h.Size != (attach.Size{Width: 100, Height: 30}) || !strings.HasPrefix(h.Who, `web "test" (token `) {
			t.Errorf("hello %+v, want read-only %v", h, ro)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_ = c.Write(ctx, websocket.MessageText, []byte(`{"t":"key","key":"b","ctrl":true}`))
		_ = c.Write(ctx, websocket.MessageText, []byte(`{"t":"resize","cols":50,"rows":20}`))
		if got := <-r.fake.inputs; got != "\x02" {
			t.Errorf("ctrl+b typed %q", got)
		}
		if sz := <-st.Resizes(); sz != (attach.Size{Width: 50, Height: 20}) {
			t.Errorf("resize %+v", sz)
		}
		cancel()
		c.Close(websocket.StatusNormalClosure, "")
	}
}

// TestNotifications: a pane entering waiting reaches the page in the
// words of the terminal's notification; other states do not.
func TestNotifications(t *testing.T) {
	r := newRig(t, nil)
	_, secret := r.token(true)
	c, _, err := r.dial(secret, "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	r.stream()
	if n := r.hub.Subscribers(); n != 1 { // taken before the attach began
		t.Fatalf("%d subscribers", n)
	}
	r.hub.Publish(control.Event{Kind: control.EventState, Session: &control.SessionInfo{Name: "agent", State: "working"}})
	r.hub.Publish(control.Event{Kind: control.EventState, Session: &control.SessionInfo{Name: "agent", State: "waiting", Reason: "needs your permission"}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	typ, b, err := c.Read(ctx)
	if err != nil || typ != websocket.MessageText || string(b) != `{"t":"notify","text":"agent is waiting: needs your permission"}` {
		t.Errorf("read %q, %v", b, err)
	}
}

// TestContract_A21_ExpiryClosesOpenPages: a page's connection ends when
// its token expires, with the code a revocation has.
func TestContract_A21_ExpiryClosesOpenPages(t *testing.T) {
	r := newRig(t, nil)
	_, secret := r.token(false)
	r.tokens.mu.Lock()
	for _, tok := range r.tokens.byHash {
		tok.info.Expires = time.Now().Add(200 * time.Millisecond)
	}
	r.tokens.mu.Unlock()
	c, _, err := r.dial(secret, "")
	if err != nil {
		t.Skipf("the token expired before the page opened (a slow machine): %v", err)
	}
	defer c.CloseNow()
	if code, reason := closeCode(t, c); code != closeRevoked || reason != "token expired" {
		t.Errorf("the page of an expired token closed with %d %q", code, reason)
	}
}
