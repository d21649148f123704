package server

import (
	"errors"
	"fmt"
	"runtime/debug"
	"sync"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/ui"
)

// The model's loop. The core is a Bubble Tea model that reads and draws
// no terminal, so it runs in a loop of the server's own rather than in a
// tea.Program. A program hands every message it delivers to a goroutine
// of its own that starts one more goroutine for each command, and the
// redraw loop's signals reach it only through a command that waits on
// them and sends what woke it: a key's echo crossed three goroutines
// before it was drawn, each a thread woken on this 2-core machine. This
// loop waits on the redraw loop's signals itself (watched) and starts a
// command's goroutine at once, so a key and its echo each cross one
// hand-off: the reader's wake into this loop.

// watched is a model whose redraw loop the loop waits on itself
// (ui.Model after WatchInLoop): Watched gives the signals it waits on
// now, nil channels while it waits on none; the one that came is
// delivered as a ui.WakeMsg.
type watched interface {
	tea.Model
	Watched() (wake, changed, stop <-chan struct{})
}

// loop runs a model until it quits (tea.QuitMsg) or panics.
type loop struct {
	model  watched
	filter func(tea.Model, tea.Msg) tea.Msg
	msgs   chan tea.Msg
	errs   chan error    // a command's panic
	done   chan struct{} // closed once run returned: Send returns at once
	once   sync.Once
}

func newLoop(m watched, filter func(tea.Model, tea.Msg) tea.Msg) *loop {
	return &loop{model: m, filter: filter, msgs: make(chan tea.Msg), errs: make(chan error, 1), done: make(chan struct{})}
}

// Send hands msg to the loop; once the loop ended it is dropped.
func (l *loop) Send(msg tea.Msg) {
	if msg == nil {
		return
	}
	select {
	case l.msgs <- msg:
	case <-l.done:
	}
}

// run delivers messages until the model quits; a panic in the model or
// in a command ends it with an error that holds the panic's stack.
func (l *loop) run() (err error) {
	defer l.once.Do(func() { close(l.done) })
	defer func() {
		if r := recover(); r != nil {
			err = panicked(r, debug.Stack())
		}
	}()
	l.exec(l.model.Init())
	for {
		var msg tea.Msg
		wake, changed, stop := l.model.Watched()
		select {
		case msg = <-l.msgs:
		case err := <-l.errs:
			return err
		case <-wake:
			msg = ui.WakeMsg{Kind: ui.WakeDirty}
		case <-changed:
			msg = ui.WakeMsg{Kind: ui.WakeChanged}
		case <-stop:
			msg = ui.WakeMsg{Kind: ui.WakeStop}
		}
		if l.filter != nil {
			if msg = l.filter(l.model, msg); msg == nil {
				continue
			}
		}
		switch msg := msg.(type) {
		case tea.QuitMsg:
			return nil
		case tea.BatchMsg:
			for _, c := range msg {
				l.exec(c)
			}
			continue
		}
		_, cmd := l.model.Update(msg)
		l.exec(cmd)
	}
}

// exec runs cmd on a goroutine of its own and delivers what it returns;
// a batch's commands each get one, without a trip through the loop.
// Like Bubble Tea's, a command's goroutine is not waited for: a timer's
// sleeps out its time, and what it returns after the end is dropped.
func (l *loop) exec(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() { // Owned by the command: it ends when the command returns.
		defer func() {
			if r := recover(); r != nil {
				select {
				case l.errs <- panicked(r, debug.Stack()):
				default: // Another panic ends the loop already.
				}
			}
		}()
		switch msg := cmd().(type) {
		case tea.BatchMsg:
			for _, c := range msg {
				l.exec(c)
			}
		default:
			l.Send(msg)
		}
	}()
}

// errPanicked is what a run that panicked returns, wrapped with the panic
// and its stack for the log.
var errPanicked = errors.New("the server's model panicked")

func panicked(r any, stack []byte) error {
	return fmt.Errorf("%w: %v\n%s", errPanicked, r, stack)
}
