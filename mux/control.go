package mux

import (
	"errors"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/session/vt"
)

// What a server's control requests may do to the panes. Each runs on the
// model's loop (from a DoMsg): none blocks; what must wait (a teardown)
// reports through its done function, called from Update.

// ErrNoPane is returned for an id no pane has.
type ErrNoPane struct{ ID string }

func (e ErrNoPane) Error() string {
	return fmt.Sprintf("no pane %q: sandmux ctl ls lists them", e.ID)
}

func (s *Shared) find(id string) (int, *Pane, error) {
	for i, p := range s.panes {
		if p.ID() == id {
			return i, p, nil
		}
	}
	return -1, nil, ErrNoPane{id}
}

// Open adds a pane at the end of the grid and starts it. A quitting
// server opens none: a pane added then would never start, and the quit,
// which waits for every start to report, would never end.
func (s *Shared) Open(spec PaneSpec) (PaneInfo, tea.Cmd, error) {
	if s.quitting {
		return PaneInfo{}, nil, errors.New("the server is quitting: it opens no new pane (start one once it is gone)")
	}
	s.addPane(spec)
	i := len(s.panes) - 1
	var cmds []tea.Cmd
	if s.started && !s.quitting {
		cmds = append(cmds, s.startPane(i))
	}
	cmds = append(cmds, s.clients.PaneAdded(s.panes[i]))
	return *s.InfoAt(i), tea.Batch(cmds...), nil
}

// ClosePane closes (kill: kills) the pane; done is told once the
// teardown ended.
func (s *Shared) ClosePane(id string, kill bool, done func(error)) (tea.Cmd, error) {
	i, p, err := s.find(id)
	if err != nil {
		return nil, err
	}
	if s.quitting {
		return nil, fmt.Errorf("the server is quitting: pane %d goes with it", i+1)
	}
	if kill && p.sess == nil && p.phase != PhaseStarting {
		return nil, fmt.Errorf("pane %d has no session to kill: it is %s", i+1, p.status())
	}
	was := p.phase
	cmd := s.CloseAt(i, kill, done)
	// closePane moves a running pane to closing without an event, and the
	// session's own report of closing changes no phase: without this, ctl
	// events never shows it and ctl wait --state closing misses it.
	if j := s.IndexOf(p.key); j >= 0 && p.phase != was {
		s.emitState(j, p)
	}
	return cmd, nil
}

// RestartPane starts an exited, killed or failed pane again.
func (s *Shared) RestartPane(id string) (tea.Cmd, error) {
	i, p, err := s.find(id)
	if err != nil {
		return nil, err
	}
	if !p.restartable() || s.quitting {
		return nil, fmt.Errorf("pane %d is %s: only an exited, killed or failed pane restarts", i+1, p.status())
	}
	return s.RestartAt(i), nil
}

// Input types encode's bytes, for the pane's modes now, into its session.
func (s *Shared) Input(id string, encode func(vt.Modes) []byte) error {
	i, p, err := s.find(id)
	if err != nil {
		return err
	}
	if !s.Send(p, encode) && p.sess == nil {
		return fmt.Errorf("pane %d is %s: nothing takes input", i+1, p.status())
	}
	p.answered()
	return nil
}

// Screen is the pane's screen as `sandmux screen` prints it.
func (s *Shared) Screen(id string, ansi, scrollback bool) (string, error) {
	i, p, err := s.find(id)
	if err != nil {
		return "", err
	}
	if p.screen == nil {
		return "", fmt.Errorf("pane %d has not started: it has no screen yet", i+1)
	}
	return string(append(p.screen.Dump(nil, scrollback, ansi), '\n')), nil
}
