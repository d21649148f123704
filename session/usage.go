package session

import "github.com/sandmux/sandmux/providers"

// usager is what a PTY that can tell its sandbox's use implements (the
// local provider's; docker, ssh and exec cannot say per pane).
type usager interface {
	Usage() (providers.Usage, bool)
}

// Usage is the CPU time and memory of the session's processes, when its
// provider can tell (ok false otherwise). It reads the provider's
// figures, which may mean reading files: call it from a command.
func (s *Session) Usage() (u providers.Usage, ok bool) {
	if p, isUsager := s.pty.(usager); isUsager {
		return p.Usage()
	}
	return providers.Usage{}, false
}
