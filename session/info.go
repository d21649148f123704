package session

// What a session is given and what it tells: its ID, state and why it
// ended, its options and their defaults, what it reports (Info), the
// sinks its output goes to, and the errors its input returns.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/session/vt"
)

// ID identifies a session within its Manager. IDs are never reused.
type ID uint64

// State is where a session is in its life.
type State int

const (
	// Running: the command runs, or has exited with output still in flight.
	Running State = iota
	// Exited: the command was reaped and its output closed (contract O7).
	Exited
	// Closing: teardown is under way.
	Closing
	// Closed: teardown settled; nothing of the session is left.
	Closed
)

var stateNames = [...]string{Running: "running", Exited: "exited", Closing: "closing", Closed: "closed"}

func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("state(%d)", int(s))
}

// Sink receives a session's settled output text, in order, from the
// session's reader or consumer goroutine, never both at once. It must not
// block for long: while it runs, output backs up into the bounded queue
// and then the child.
type Sink interface {
	Output(text string)
}

// Options are the per-session settings.
type Options struct {
	// StopGrace is how long teardown waits after SIGHUP before SIGTERM.
	StopGrace time.Duration
	// KillGrace is how long teardown waits after SIGTERM before SIGKILL.
	KillGrace time.Duration
	// DrainGrace is how long output may stay open after the command was
	// reaped (a background child holding the PTY) before the group is
	// killed and the PTY closed so output can close.
	DrainGrace time.Duration
	// Bound limits how long a caller of Close, Kill or Shutdown waits for
	// this session's teardown (contract C8, C9). Zero means the graces plus
	// ten seconds.
	Bound time.Duration
	// QueueBytes bounds the output queue between reader and consumer.
	QueueBytes int
	// Window is the collector's window: how long output handed to the
	// consumer is gathered after its first byte before it goes to the
	// sinks. It adds to the latency of an echo the reader did not settle
	// itself, so it is short; a full queue ends a window early, so
	// throughput does not depend on it. Negative means none.
	Window time.Duration
	// Sinks receive the settled output.
	Sinks []Sink
	// Screen, when set, is the session's screen: the settled output is
	// parsed into it in bounded slices, and its replies (cursor reports,
	// device attributes) go back to the session's input.
	Screen *vt.Screen
	// Turns, when set, orders the parsing of many sessions' output: a
	// turn is taken before each slice and given back after it.
	Turns Turns
	// Parsed, when set, is called each time output was parsed into
	// Screen, by the goroutine that parsed it, holding neither the
	// screen's lock nor a turn: the place to draw a key's echo at once.
	Parsed func()
	// Pacer, when set, spaces the reads of a child that writes a little
	// at a time: after a read smaller than handOff the reader waits in
	// Pace before it reads again; input written to the child ends the
	// wait (Hurry).
	Pacer Pacer
	// AfterTeardown runs once the session's processes are verified gone and
	// its goroutines joined (contract C11): the place for a workspace
	// snapshot. info.Reason says why the session was torn down; stage
	// shows progress in the session's Stage. What it returns is kept in
	// Info.Saved (say, the snapshot's path); its error is reported by Close
	// and Shutdown.
	AfterTeardown func(ctx context.Context, info Info, stage func(string)) (saved string, err error)
}

// Default values for zero Options fields.
const (
	DefaultStopGrace  = 2 * time.Second
	DefaultKillGrace  = 2 * time.Second
	DefaultDrainGrace = time.Second
	DefaultQueueBytes = 256 << 10
	DefaultWindow     = 500 * time.Microsecond
	inputQueueLen     = 256
)

// withDefaults is o with every unset (zero or negative) bound at its
// default; a negative Window is no window.
func (o Options) withDefaults() Options {
	orDefault(&o.StopGrace, DefaultStopGrace)
	orDefault(&o.KillGrace, DefaultKillGrace)
	orDefault(&o.DrainGrace, DefaultDrainGrace)
	orDefault(&o.QueueBytes, DefaultQueueBytes)
	if o.Window < 0 {
		o.Window = 0
	} else if o.Window == 0 {
		o.Window = DefaultWindow
	}
	orDefault(&o.Bound, o.StopGrace+o.KillGrace+10*time.Second)
	return o
}

// orDefault sets *v to def when it is zero or negative.
func orDefault[T int | time.Duration](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// Reason is why a session was torn down.
type Reason int

const (
	// ReasonNone: no teardown has begun.
	ReasonNone Reason = iota
	// ReasonClose: Manager.Close (a pane closed).
	ReasonClose
	// ReasonKill: Manager.Kill (kill now).
	ReasonKill
	// ReasonShutdown: Manager.Shutdown or KillAll (quitting).
	ReasonShutdown
)

// Info is a copy of a session's public state.
type Info struct {
	ID       ID
	Name     string
	Provider string
	State    State
	// Stage is the current teardown step while Closing, for display.
	Stage string
	// Exit is how the command ended; valid when ExitKnown.
	Exit      providers.ExitStatus
	ExitKnown bool
	// Killed is set once teardown verified the process group empty (C12).
	Killed bool
	// Survivors names the processes a teardown could not kill, where the
	// provider can tell (providers.SurvivorLister).
	Survivors []providers.Process
	// Err is the teardown's error, once Closed.
	Err error
	// Reason is why teardown began.
	Reason Reason
	// Saved is what the after-teardown hook returned (a snapshot's path).
	Saved string
	// Disconnected is set when the connection to a remote sandbox dropped:
	// output ended, and how the command ended is unknown.
	Disconnected bool
	// LastOutput is when output last arrived.
	LastOutput time.Time
	Started    time.Time
	// BytesOut counts the bytes the PTY gave, before settling.
	BytesOut int64
	// PID is the process the provider started, when it can tell (a local
	// pane's; 0 elsewhere).
	PID int
}

// ErrInputClosed is returned by Write once teardown has begun.
var ErrInputClosed = errors.New("session input is closed")

// ErrInputFull is returned by Write when the child has not read the input
// already queued for it.
var ErrInputFull = errors.New("session input queue is full: the program is not reading its input")
