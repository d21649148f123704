package ui

// The modals a view may show, each one type carrying its own state: the
// view holds one (view.modal) or none.

// modal is what covers a client's panes and takes its keys, with the
// state of its own: nil when nothing does. Each kind is one type
// (below); modalKind names it, for switches and tests.
type modal interface{ kind() modalKind }

// modalKind is which modal a view shows.
type modalKind int

const (
	modalNone modalKind = iota
	modalHelp
	modalConfirmQuit
	modalConfirmClose // x on a pane that runs asks first, as tmux's kill-pane
	modalClosing      // a pane this client closes is being torn down
	modalRename       // this client is typing a pane's new name
	modalList         // the list of every pane (prefix w, sessions.go)
	modalFind         // this client searches across panes (findall.go)
	modalPrompt       // this client types a line: a command, a pane's number (prompt.go)
	modalPick         // this client picks what a new pane runs (spawn.go)
)

type (
	helpModal         struct{ top int } // top: the first row of help shown
	confirmQuitModal  struct{}
	confirmCloseModal struct{ key int } // x on a pane that runs asks first, as tmux's kill-pane
	closingModal      struct{ key int } // a pane this client closes is being torn down
	// renameModal: this client is typing pane key's new name.
	renameModal struct {
		key  int
		text string
	}
)

func (helpModal) kind() modalKind         { return modalHelp }
func (confirmQuitModal) kind() modalKind  { return modalConfirmQuit }
func (confirmCloseModal) kind() modalKind { return modalConfirmClose }
func (closingModal) kind() modalKind      { return modalClosing }
func (*renameModal) kind() modalKind      { return modalRename }
func (*sessionList) kind() modalKind      { return modalList }
func (*findState) kind() modalKind        { return modalFind }
func (*prompt) kind() modalKind           { return modalPrompt }
func (*picker) kind() modalKind           { return modalPick }

// modalKind is which modal the view shows (modalNone: none).
func (v *view) modalKind() modalKind {
	if v.modal == nil {
		return modalNone
	}
	return v.modal.kind()
}

// closingKey is the pane the view closes (closingModal) or asks to
// (confirmCloseModal); -1 under any other modal.
func (v *view) closingKey() int {
	switch m := v.modal.(type) {
	case closingModal:
		return m.key
	case confirmCloseModal:
		return m.key
	}
	return -1
}

// closing reports whether the view shows the teardown of pane key.
func (v *view) closing(key int) bool {
	m, ok := v.modal.(closingModal)
	return ok && m.key == key
}

// The state of the modal shown, or nil under another one.

func (v *view) rename() *renameModal   { r, _ := v.modal.(*renameModal); return r }
func (v *view) sessions() *sessionList { l, _ := v.modal.(*sessionList); return l }
func (v *view) find() *findState       { f, _ := v.modal.(*findState); return f }
func (v *view) prompt() *prompt        { p, _ := v.modal.(*prompt); return p }
func (v *view) picker() *picker        { p, _ := v.modal.(*picker); return p }
