package mux

import (
	"context"
	"time"

	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/session"
)

// Backend is what the UI needs from the session Manager. Every method but
// Changed may block: the UI calls them only from commands.
type Backend interface {
	Start(ctx context.Context, provider string, spec providers.Spec, opts session.Options) (Session, error)
	Close(ctx context.Context, id session.ID) error
	Kill(ctx context.Context, id session.ID) error
	Shutdown(ctx context.Context) error
	KillAll()
	Changed() <-chan struct{}
	List() []session.Info
}

// Session is what a pane needs from its session. Write never blocks (it
// queues); Resize makes a system call and is called from commands only.
type Session interface {
	ID() session.ID
	Write(p []byte) error
	Resize(providers.Size) error
	Info() session.Info
	// LastOutput is when output last arrived; it never blocks.
	LastOutput() time.Time
	// Usage is the CPU time and memory of the session's processes, when
	// the provider can tell; it reads files, so commands call it.
	Usage() (providers.Usage, bool)
	// MemBytes is about what the session's own buffers hold, for
	// mem_bytes; it never blocks for long.
	MemBytes() int64
}

// FromManager adapts a session.Manager to a Backend.
func FromManager(m *session.Manager) Backend { return managerBackend{m} }

type managerBackend struct{ *session.Manager }

func (b managerBackend) Start(ctx context.Context, provider string, spec providers.Spec, opts session.Options) (Session, error) {
	s, err := b.Manager.Start(ctx, provider, spec, opts)
	if err != nil {
		return nil, err
	}
	return s, nil
}
