package daemon

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"time"

	"github.com/sandmux/sandmux/endpoint"
)

// ProbeTimeout bounds how long List waits for one server's answer: a
// server that hangs is listed with its error, not waited for.
const ProbeTimeout = 2 * time.Second

// Prober asks the server at socket how many sessions it runs and how many
// clients are attached to it. Package main implements it over the control
// protocol; an error wrapping endpoint.ErrNoServer means nothing answers.
type Prober func(ctx context.Context, socket string) (sessions, clients int, err error)

// Server is one socket in endpoint.Dir, as List found it.
type Server struct {
	Name   string // the -L name
	Socket string
	// Stale means no server answers at the socket: one exited without
	// removing it (it was killed, or crashed). Stale sockets are listed,
	// not removed: `ls` only looks, and a remove racing with a server
	// starting under that name could remove the new server's socket. The
	// next server of that name replaces it (endpoint.Listen).
	Stale bool
	// Refused means the socket, or its directory, is another user's: it
	// was not asked anything (endpoint.Dial refused it, A4), and Err says
	// whose it is.
	Refused  bool
	Sessions int
	Clients  int
	// Err is why a live server's counts are unknown (its probe failed).
	Err error
}

// List finds the servers whose sockets are in endpoint.Dir, in name
// order, and asks each live one for its counts with probe (in parallel,
// each bounded by ProbeTimeout). A nil probe only tells live from stale.
// Servers on an explicit -S path elsewhere are not found.
func List(ctx context.Context, probe Prober) ([]Server, error) {
	names, err := endpoint.Servers()
	if err != nil {
		return nil, err
	}
	servers := make([]Server, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		servers[i] = Server{Name: name, Socket: filepath.Join(endpoint.Dir(), name+".sock")}
		wg.Go(func() { servers[i].probe(ctx, probe) })
	}
	wg.Wait()
	return servers, nil
}

// probe fills in s: stale, or its counts, or why they are unknown.
func (s *Server) probe(ctx context.Context, probe Prober) {
	up, err := answers(s.Socket)
	switch {
	case err != nil:
		s.Err, s.Refused = err, errors.Is(err, endpoint.ErrNotYours)
		return
	case !up:
		s.Stale = true
		return
	case probe == nil:
		return
	}
	pctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	s.Sessions, s.Clients, s.Err = probe(pctx, s.Socket)
	if errors.Is(s.Err, endpoint.ErrNoServer) {
		// It exited between the two looks.
		s.Stale, s.Err = true, nil
	}
}
