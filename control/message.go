package control

import (
	"encoding/json"
	"time"
)

// Version is the protocol version this sandmux speaks. A message of
// another version is refused with an error saying both.
const Version = 1

// MaxLine bounds one message, newline included: a request is small, and a
// reply as large as a screen with its scrollback still fits.
const MaxLine = 8 << 20

// Op names a request's operation.
type Op string

// The operations.
const (
	OpLs       Op = "ls"        // list sessions
	OpRun      Op = "run"       // open a local pane running Argv
	OpStart    Op = "start"     // open the config's sandbox Sandbox
	OpClose    Op = "close"     // close Session: teardown, then its snapshot
	OpKill     Op = "kill"      // kill Session now
	OpRestart  Op = "restart"   // restart an exited, killed or failed Session
	OpSend     Op = "send"      // type Data into Session (Paste: bracketed)
	OpKeys     Op = "keys"      // press Keys in Session, encoded for its modes
	OpScreen   Op = "screen"    // Session's screen as text
	OpWait     Op = "wait"      // wait until Session reaches State
	OpStatus   Op = "status"    // report Session's State (Reason, for TTL)
	OpEvents   Op = "events"    // stream events until the client goes
	OpQuit     Op = "quit"      // quit the server (Kill: kill everything now)
	OpAttach   Op = "attach"    // attach a terminal: the connection carries frames after the reply
	OpRecord   Op = "record"    // Action (start, stop, pause, resume, marker) a recording of Session or a View
	OpSaveLast Op = "save-last" // write Session's last Duration of output to File
	OpProfile  Op = "profile"   // write the server's Profile (cpu over Duration, heap, ...) to File

	OpTokenNew    Op = "token-new"    // make a web client token (Name, ReadOnly, for TTL): the reply's URL
	OpTokenLs     Op = "token-ls"     // list the web client's tokens
	OpTokenRevoke Op = "token-revoke" // revoke Token (an ID from token-ls), closing its open pages
)

// Request is one message from a client.
type Request struct {
	V  int `json:"v"`
	Op Op  `json:"op"`

	Session    string   `json:"session,omitempty"` // a pane number, name or id
	Name       string   `json:"name,omitempty"`
	Argv       []string `json:"argv,omitempty"`
	Sandbox    string   `json:"sandbox,omitempty"`
	Data       []byte   `json:"data,omitempty"` // base64 in JSON: any bytes
	Keys       []string `json:"keys,omitempty"`
	Paste      bool     `json:"paste,omitempty"`
	ANSI       bool     `json:"ansi,omitempty"`
	Scrollback bool     `json:"scrollback,omitempty"`
	State      string   `json:"state,omitempty"`
	Phase      string   `json:"phase,omitempty"` // wait: the phase (running, exited, ...) rather than the state
	Reason     string   `json:"reason,omitempty"`
	TTL        Duration `json:"ttl,omitempty"`
	Timeout    Duration `json:"timeout,omitempty"`
	Kill       bool     `json:"kill,omitempty"`

	// OpRecord and OpSaveLast: what to do, to which client's view (0:
	// the one that typed last), the file (absolute: the server's working
	// directory is not the client's; "" for one in the recordings
	// directory), the idle limit, a marker's label, the window to save.
	Action    string   `json:"action,omitempty"`
	View      bool     `json:"view,omitempty"`
	Client    int      `json:"client,omitempty"`
	File      string   `json:"file,omitempty"`
	IdleLimit Duration `json:"idle_limit,omitempty"`
	Label     string   `json:"label,omitempty"`
	Duration  Duration `json:"duration,omitempty"`

	// OpProfile: which of the Go runtime's profiles (cpu, heap, allocs,
	// goroutine) goes to File; a cpu profile covers Duration.
	Profile string `json:"profile,omitempty"`

	// OpTokenRevoke: the token's ID (never the token itself).
	Token string `json:"token,omitempty"`

	// OpAttach's hello: the terminal's size in cells, whether it may only
	// look, its $TERM and $COLORTERM, the client's working directory
	// (where the panes it opens start), and whether it hands the server
	// its terminal itself (TTY: the server reads and draws it directly,
	// and the frames carry only sizes and the exit; docs/PROTOCOL.md).
	Width     int    `json:"width,omitempty"`
	Height    int    `json:"height,omitempty"`
	ReadOnly  bool   `json:"read_only,omitempty"`
	Term      string `json:"term,omitempty"`
	ColorTerm string `json:"colorterm,omitempty"`
	Cwd       string `json:"cwd,omitempty"`
	TTY       bool   `json:"tty,omitempty"`
}

// Reply is the server's answer to a request; for OpEvents, each event is a
// Reply with Event set, and the stream's last line a Reply with Error.
type Reply struct {
	V     int    `json:"v"`
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`

	Sessions []SessionInfo `json:"sessions,omitempty"`
	Clients  *int          `json:"clients,omitempty"` // for ls: how many clients are attached
	Config   string        `json:"config,omitempty"`  // for ls: the config file the server read ("": the built-in)
	Session  *SessionInfo  `json:"session,omitempty"`
	Screen   string        `json:"screen,omitempty"`
	Event    *Event        `json:"event,omitempty"`
	File     string        `json:"file,omitempty"` // for record and save-last: the cast; for profile: the profile
	URL      string        `json:"url,omitempty"`  // for token-new: the page to open, the token in its fragment
	Tokens   []TokenInfo   `json:"tokens,omitempty"`
}

// TokenInfo is one web client token as `ctl token ls` shows it: never
// the token, which only its URL carried once.
type TokenInfo struct {
	ID       string    `json:"id"`
	Name     string    `json:"name"`
	ReadOnly bool      `json:"read_only"`
	Created  time.Time `json:"created"`
	Expires  time.Time `json:"expires"`
	Pages    int       `json:"pages"` // how many pages are open with it
}

// SessionInfo is one session as `ctl ls --json` shows it.
type SessionInfo struct {
	Number     int        `json:"number"`
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Provider   string     `json:"provider"`
	State      string     `json:"state"`
	Reason     string     `json:"reason"`
	Since      *time.Time `json:"since"`
	Phase      string     `json:"phase"`
	ExitCode   *int       `json:"exit_code"`
	Started    time.Time  `json:"started"`
	LastOutput *time.Time `json:"last_output"`
	BytesOut   int64      `json:"bytes_out"`
	PID        *int       `json:"pid"`
	CPUPercent *float64   `json:"cpu_percent"`
	RSSBytes   *int64     `json:"rss_bytes"`
	MemBytes   int64      `json:"mem_bytes"` // what sandmux holds for it: screen, scrollback, ring, buffers
	Recording  *string    `json:"recording"` // the file it is recorded to, or null
}

// EventKind names what an event reports.
type EventKind string

// The events.
const (
	EventStarted   EventKind = "started"
	EventState     EventKind = "state"
	EventPhase     EventKind = "phase"
	EventAttention EventKind = "attention"
	EventExited    EventKind = "exited"
	EventClosed    EventKind = "closed"
	EventSnapshot  EventKind = "snapshot"
	EventAttached  EventKind = "attached"
	EventDetached  EventKind = "detached"
	EventRecording EventKind = "recording"
)

// Event is one thing that happened, as `ctl events` streams it.
type Event struct {
	Kind     EventKind    `json:"kind"`
	Time     time.Time    `json:"time"`
	Session  *SessionInfo `json:"session,omitempty"`
	Detail   string       `json:"detail,omitempty"`
	Progress *float64     `json:"progress,omitempty"`
}

// Duration is a time.Duration written in JSON as Go writes durations
// ("1m30s"), so a hand-written request reads as a person would type it.
type Duration time.Duration

// MarshalJSON writes d as a duration string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// UnmarshalJSON reads a duration string, never a negative one.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return errDuration
	}
	v, err := time.ParseDuration(s)
	if err != nil || v < 0 {
		return errDuration
	}
	*d = Duration(v)
	return nil
}
