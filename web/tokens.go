package web

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/sandmux/sandmux/control"
	"github.com/sandmux/sandmux/termsafe"
)

// Token bounds (A21).
const (
	// DefaultTTL is how long a token lives unless told otherwise.
	DefaultTTL = 24 * time.Hour
	// MinTTL and MaxTTL bound a token's life.
	MinTTL = time.Minute
	MaxTTL = 30 * 24 * time.Hour
	// maxTokens bounds the live tokens, so ctl token new in a loop cannot
	// grow the server without bound.
	maxTokens = 256
	// maxName bounds a token's name, in bytes.
	maxName = 64
	// secretBytes is a token's randomness: 192 bits.
	secretBytes = 24
)

// digest is a token's SHA-256: all the server keeps of it.
type digest [sha256.Size]byte

// token is one live token: never the secret, only its digest.
type token struct {
	info  control.TokenInfo
	pages map[*page]struct{}
}

// page is one open page, as its token's revocation reaches it.
type page struct {
	close func(why string) // closes the page's connection at once
}

// Tokens keeps the web client's tokens. It is safe for use from any
// goroutine. Each token is random, kept as its hash, expires, and its
// revocation closes the pages it opened.
type Tokens struct {
	now func() time.Time

	mu     sync.Mutex
	base   string // "http://HOST:PORT/", once the listener is up
	byHash map[digest]*token
	byID   map[string]digest
}

// NewTokens returns an empty store.
func NewTokens() *Tokens {
	return &Tokens{now: time.Now, byHash: map[digest]*token{}, byID: map[string]digest{}}
}

// setBase sets the URL new tokens are given in, once Serve listens.
func (t *Tokens) setBase(base string) {
	t.mu.Lock()
	t.base = base
	t.mu.Unlock()
}

// New makes a token: its URL carries the secret in the fragment, which a
// browser never sends to a server or a proxy.
func (t *Tokens) New(name string, readOnly bool, ttl time.Duration) (control.TokenInfo, string, error) {
	if ttl == 0 {
		ttl = DefaultTTL
	}
	if ttl < MinTTL || ttl > MaxTTL {
		return control.TokenInfo{}, "", fmt.Errorf("a token lives %v to %v, not %v: give another --ttl", MinTTL, MaxTTL, ttl)
	}
	if len(name) > maxName || !utf8.ValidString(name) {
		return control.TokenInfo{}, "", fmt.Errorf("a token's name is at most %d bytes of UTF-8: give a shorter --name", maxName)
	}
	secret, id := make([]byte, secretBytes), make([]byte, 4)
	// crypto/rand.Read never fails (it panics when the kernel cannot give randomness).
	_, _ = rand.Read(secret)
	_, _ = rand.Read(id)
	sec := base64.RawURLEncoding.EncodeToString(secret)
	now := t.now()
	info := control.TokenInfo{ID: hex.EncodeToString(id), Name: termsafe.String(name), ReadOnly: readOnly,
		Created: now.UTC().Truncate(time.Second), Expires: now.Add(ttl).UTC().Truncate(time.Second)}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.expire(now)
	if t.base == "" {
		return control.TokenInfo{}, "", errors.New("the web client is not listening yet: try again in a moment")
	}
	if len(t.byHash) >= maxTokens {
		return control.TokenInfo{}, "", fmt.Errorf("%d tokens are live already: revoke some (sandmux ctl token ls, then token revoke ID)", maxTokens)
	}
	h := sha256.Sum256([]byte(sec))
	t.byHash[h] = &token{info: info, pages: map[*page]struct{}{}}
	t.byID[info.ID] = h
	return info, t.base + "#t=" + sec, nil
}

// List returns every live token, oldest first.
func (t *Tokens) List() []control.TokenInfo {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.expire(t.now())
	list := make([]control.TokenInfo, 0, len(t.byHash))
	for _, tok := range t.byHash {
		info := tok.info
		info.Pages = len(tok.pages)
		list = append(list, info)
	}
	slices.SortFunc(list, func(a, b control.TokenInfo) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return compareStrings(a.ID, b.ID)
	})
	return list
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Revoke forgets the token of id and closes its open pages at once.
func (t *Tokens) Revoke(id string) (control.TokenInfo, error) {
	t.mu.Lock()
	h, ok := t.byID[id]
	if !ok {
		t.mu.Unlock()
		return control.TokenInfo{}, fmt.Errorf("no token %q: sandmux ctl token ls lists their IDs", termsafe.String(id))
	}
	tok := t.byHash[h]
	t.drop(h)
	t.mu.Unlock()
	info := tok.info
	info.Pages = len(tok.pages)
	for p := range tok.pages {
		p.close("token revoked")
	}
	return info, nil
}

// check finds the live token whose secret is sec.
func (t *Tokens) check(sec string) (control.TokenInfo, bool) {
	h := sha256.Sum256([]byte(sec))
	t.mu.Lock()
	defer t.mu.Unlock()
	t.expire(t.now())
	tok, ok := t.byHash[h]
	if !ok {
		return control.TokenInfo{}, false
	}
	return tok.info, true
}

// open counts p among the pages of the token of id; false when the token
// went meanwhile (revoked, or expired since check).
func (t *Tokens) open(id string, p *page) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	tok, ok := t.byHash[t.byID[id]]
	if !ok {
		return false
	}
	tok.pages[p] = struct{}{}
	return true
}

// closed forgets p.
func (t *Tokens) closed(id string, p *page) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if tok, ok := t.byHash[t.byID[id]]; ok {
		delete(tok.pages, p)
	}
}

// expire drops the tokens past their time; their pages close at their
// own deadline (each page's context ends at its token's expiry). Called
// with mu held.
func (t *Tokens) expire(now time.Time) {
	for h, tok := range t.byHash {
		if !now.Before(tok.info.Expires) {
			t.drop(h)
		}
	}
}

func (t *Tokens) drop(h digest) {
	if tok, ok := t.byHash[h]; ok {
		delete(t.byID, tok.info.ID)
		delete(t.byHash, h)
	}
}
