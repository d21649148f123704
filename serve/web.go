package serve

import (
	"context"
	"log"

	"github.com/sandmux/sandmux/config"
	"github.com/sandmux/sandmux/keys/encode"
	"github.com/sandmux/sandmux/server"
	"github.com/sandmux/sandmux/session/vt"
	"github.com/sandmux/sandmux/web"
)

// The web client, wired when [server] http_listen asks for it:
//
//	ctl token new ─▶ server's handler ─▶ web.Tokens ◀─ web.Server (/ws checks them)
//	control.Hub ─▶ web.Server (notifications) ; web.Server ─▶ server.Server.Attach (one client per page)

// webParts are the web client's pieces a server is wired with; zero when
// it serves none.
type webParts struct {
	tokens *web.Tokens
}

// newWebParts makes the token store when the config serves the web
// client.
func newWebParts(cfg *config.Config) webParts {
	if cfg.Server.HTTPListen == "" {
		return webParts{}
	}
	return webParts{tokens: web.NewTokens()}
}

// handlerOptions are the control handler's options for the web client:
// its token ops.
func (w webParts) handlerOptions() []server.HandlerOption {
	if w.tokens == nil {
		return nil
	}
	return []server.HandlerOption{server.WithTokens(w.tokens)}
}

// webServer listens for browsers, and returns what serves them until its
// context ends (nothing, when the config serves no web client).
func webServer(cfg *config.Config, sv serverParts, logger *log.Logger) (func(context.Context), error) {
	if sv.web.tokens == nil {
		return func(context.Context) {}, nil
	}
	wc := web.DefaultConfig()
	wc.Listen = cfg.Server.HTTPListen
	wc.Tokens = sv.web.tokens
	wc.Events = sv.hub
	wc.Log = func(msg string) { logger.Print("web: ", msg) }
	wc.Prefix, _ = encode.KeyNames([]string{cfg.UI.Prefix}, vt.Modes{}) // the config checked the name
	ws, err := web.Listen(wc)
	if err != nil {
		return nil, err
	}
	if !config.IsLoopback(cfg.Server.HTTPListen) {
		logger.Printf("warning: the web client on %s is plain HTTP that other machines reach: put it behind TLS (a reverse proxy, an SSH tunnel)", ws.Addr())
	}
	logger.Printf("serving the web client on http://%s", ws.Addr())
	return func(ctx context.Context) {
		if err := ws.Serve(ctx, sv.attacher); err != nil {
			logger.Print(err)
		}
	}, nil
}
