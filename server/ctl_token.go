package server

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sandmux/sandmux/control"
)

// Tokens is what the control handler needs of the web client's tokens
// (package web keeps them): ctl token new, ls and revoke.
type Tokens interface {
	// New makes a token and returns it as the URL of the page that
	// presents it; ttl 0 is the default lifetime.
	New(name string, readOnly bool, ttl time.Duration) (control.TokenInfo, string, error)
	// List is every live token, oldest first.
	List() []control.TokenInfo
	// Revoke ends the token of an ID and closes its open pages.
	Revoke(id string) (control.TokenInfo, error)
}

// HandlerOption adds to what NewHandler answers.
type HandlerOption func(*ctlHandler)

// WithTokens answers the token ops from t; without it they say that the
// server serves no web client.
func WithTokens(t Tokens) HandlerOption {
	return func(h *ctlHandler) { h.tokens = t }
}

var errNoWeb = errors.New("this server serves no web client: set [server] http_listen in its config and start it again")

func (h *ctlHandler) tokenNew(_ context.Context, req control.Request) (control.Reply, error) {
	if h.tokens == nil {
		return control.Reply{}, errNoWeb
	}
	ti, url, err := h.tokens.New(req.Name, req.ReadOnly, time.Duration(req.TTL))
	if err != nil {
		return control.Reply{}, fmt.Errorf("make a token: %w", err)
	}
	return control.Reply{URL: url, Tokens: []control.TokenInfo{ti}}, nil
}

func (h *ctlHandler) tokenLs(context.Context, control.Request) (control.Reply, error) {
	if h.tokens == nil {
		return control.Reply{}, errNoWeb
	}
	return control.Reply{Tokens: h.tokens.List()}, nil
}

func (h *ctlHandler) tokenRevoke(_ context.Context, req control.Request) (control.Reply, error) {
	if h.tokens == nil {
		return control.Reply{}, errNoWeb
	}
	ti, err := h.tokens.Revoke(req.Token)
	if err != nil {
		return control.Reply{}, err
	}
	return control.Reply{Tokens: []control.TokenInfo{ti}}, nil
}
