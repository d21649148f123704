package attach

import "io"

// Size is a terminal's size in cells.
type Size struct{ Width, Height int }

// Hello is what a client says about itself when it attaches.
type Hello struct {
	// Size is the terminal's size when it attached.
	Size Size
	// ReadOnly asks for a client that may look but not touch: no key
	// reaches a pane, no close, kill, restart or quit runs.
	ReadOnly bool
	// Term and ColorTerm are the client's $TERM and $COLORTERM.
	Term, ColorTerm string
	// Who names the client in logs and events ("local pid 123",
	// "ssh alice SHA256:…").
	Who string
	// Dir is the client's working directory, absolute, where the panes
	// it opens start; "" when it did not say (SSH).
	Dir string
}

// Exit is how an attachment ended, as the client shows it.
type Exit struct {
	// Detached: the client left and the server goes on.
	Detached bool
	// Code is the client's exit status once the server quit.
	Code int
	// Summary is printed by the client after it restored its terminal:
	// one line per session, already escaped.
	Summary string
}

// Stream is one attached terminal as the server sees it. Read returns
// the terminal's input (io.EOF once it went away); Write draws on it.
// Writes may come from one goroutine at a time.
type Stream interface {
	io.Reader
	io.Writer
	// Hello is what the client said when it attached.
	Hello() Hello
	// Resizes delivers each new size of the terminal; it is closed when
	// the terminal went away.
	Resizes() <-chan Size
	// Finish tells the client how the attachment ended and closes the
	// stream; Read returns io.EOF afterwards. It is called once.
	Finish(Exit) error
}

// OfferSize puts sz in sizes (a channel of one slot), replacing a size not
// yet taken: only the newest matters to a server. The caller must be the
// channel's only sender, so the slot it empties stays empty for it.
func OfferSize(sizes chan Size, sz Size) {
	select {
	case <-sizes:
	default:
	}
	sizes <- sz
}
