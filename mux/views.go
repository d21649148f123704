package mux

// Change is what changed of a pane, for the views' paneChanged.
type Change int

const (
	// ChangeStarted: the pane has a new screen (a start or restart); each
	// view's state of it starts afresh, with a first frame.
	ChangeStarted Change = iota
	// ChangeClosed: a close of the pane (x, ctl close; escalated to a
	// kill or not) ended, the pane removed next or kept showing why it
	// failed; a view that showed its teardown stops.
	ChangeClosed
)

// NoView is the view to tell when none is: a ctl request's reply says it.
const NoView = -1
