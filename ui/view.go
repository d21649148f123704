package ui

import (
	"slices"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/mux"
	"github.com/sandmux/sandmux/session/vt"
	"github.com/sandmux/sandmux/termsize"
	"github.com/sandmux/sandmux/ui/term"
)

// view is one client's look at the shared panes: its terminal's size,
// its focus, page, zoom and modes, and the frames it drew of each pane.
// Every attached client has its own, tests' included.
type view struct {
	m  *Model
	id int

	width, height int
	focusKey      int // the focused pane's key (focusIndex)
	page          int
	zoom          bool
	readOnly      bool // sees everything, touches nothing (A2)

	prefixPending bool
	broadcast     bool
	modal         modal // what covers the panes, with its state; nil: nothing
	scrollMode    bool
	notice        string     // a one-off word in the status line ("read-only")
	drag          *dragState // a left button held over a pane (selection.go)
	dir           string     // where the client started, for its new panes ("": unknown)

	panes map[int]*paneView // by pane key

	// The layout last computed (pageRects), and what it was computed for.
	layoutKey   layoutKey
	laidOut     bool
	layoutIdx   []int
	layoutRects []rect

	// lines are the lines composed last (composeLines); renderGen counts
	// the renders of its panes' bodies; composes, the compositions (a
	// look at every line: what a key typed must not cost), and titleLooks
	// the titles looked at (every pane's but when an echo is drawn).
	lines      composedLines
	renderGen  uint64
	composes   int
	titleLooks int
	// status is the status line styled, from statusParts (status.go),
	// once statusMade.
	statusParts statusParts
	statusMade  bool
	status      string

	out         []byte         // a line being composed, reused
	pvScratch   []*paneView    // composeLines' panes of the page, reused
	term        *term.Terminal // draws this client's frames; nil: nothing does
	cursorColor string         // the cursor colour last set on the terminal ("": its own)
	colors      clientTheme    // what the terminal told of its colours (theme.go)
	// detached is called, from Update, when the client asks to leave.
	detached func()

	// A frame's lines, titles, cursor and a line's cuts, composed again
	// in the same places each time: the Terminal copies what it is
	// handed.
	linesScratch  []string
	titlesScratch []string
	cursorScratch tea.Cursor
	cutsScratch   []term.Cut
}

// paneView is what one client keeps of one pane: the frame it last took
// of the pane's screen (live or scrolled back), its rendered rows, and
// its own scroll, search, pick and attention marker.
type paneView struct {
	frame vt.Frame
	// rows are the frame's rows rendered, each kept until it changes;
	// rowGens say in which render generation (gen) each last changed.
	rows    [][]byte
	rowGens []uint64
	gen     uint64
	// title is the title line styled, from titleParts (title.go), once
	// titled.
	titleParts titleParts
	titled     bool
	title      string

	scroll       int // lines scrolled back; 0 is live
	search       *searchState
	sel          *selection // copy mode's selection (selection.go)
	picked       bool       // receives this client's broadcast input
	attention    bool
	dirtyPending bool // the screen changed while off this client's page
}

// AttachMsg adds a client's view, drawn through Term.
type AttachMsg struct {
	ID            int
	Term          *term.Terminal
	Width, Height int
	ReadOnly      bool
	// Dir is the client's working directory, where its new panes start
	// ("": it did not say).
	Dir string
	// Detached is called from Update (it must not block) when the client
	// asks to detach.
	Detached func()
}

// DetachMsg removes client ID's view: it left, or its terminal went away.
type DetachMsg struct{ ID int }

// ClientMsg is input (keys, paste, mouse, focus, a new size) from client ID.
type ClientMsg struct {
	ID  int
	Msg tea.Msg
}

func (m *Model) newView(id int) *view {
	v := &view{m: m, id: id, focusKey: -1, width: m.layoutW, height: m.layoutH, panes: map[int]*paneView{},
		colors: clientTheme{theme: vt.DefaultTheme}}
	m.views = append(m.views, v)
	return v
}

func (m *Model) viewByID(id int) *view {
	for _, v := range m.views {
		if v.id == id {
			return v
		}
	}
	return nil
}

func (m *Model) attach(msg AttachMsg) tea.Cmd {
	v := m.newView(msg.ID)
	v.term, v.readOnly, v.detached, v.dir = msg.Term, msg.ReadOnly, msg.Detached, msg.Dir
	m.Emit(Event{Kind: EventAttached, Client: msg.ID})
	if w, h := fitSize(msg.Width, msg.Height); w > 0 && h > 1 {
		v.width, v.height = w, h
	}
	if !v.readOnly {
		m.active = v // the newest client sizes the panes, until another types (A3)
		m.syncTheme()
	}
	if !m.Started() {
		m.layoutW, m.layoutH = v.width, v.height
		return m.StartAll()
	}
	return v.relayout()
}

func (m *Model) detach(id int) tea.Cmd {
	for i, v := range m.views {
		if v.id != id {
			continue
		}
		m.views = append(m.views[:i], m.views[i+1:]...)
		m.Emit(Event{Kind: EventDetached, Client: id})
		stop := m.stopViewRecording(id, "the client detached", nil, mux.NoView)
		if m.active == v {
			// The newest client that may type sizes the panes now; a
			// read-only one never does (A2).
			m.active = nil
			defer m.syncTheme()
			for _, o := range slices.Backward(m.views) {
				if !o.readOnly {
					m.active = o
					return tea.Batch(stop, o.relayout())
				}
			}
		}
		return stop
	}
	return nil
}

// pv is the view's state of pane p, made on first use.
func (v *view) pv(p *mux.Pane) *paneView {
	s := v.panes[p.Key()]
	if s == nil {
		s = &paneView{}
		v.panes[p.Key()] = s
		v.takeFrame(p)
	}
	return s
}

// input handles one message of the client's terminal.
func (v *view) input(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		return v.setSize(msg.Width, msg.Height)
	case tea.KeyPressMsg:
		cmd = v.handleKey(msg)
	case tea.PasteMsg:
		cmd = v.handlePaste(msg.Content)
	case tea.MouseMsg:
		cmd = v.handleMouse(msg)
	case tea.FocusMsg, tea.BlurMsg:
		return v.handleFocusReport(msg)
	default:
		v.colorInput(msg)
		return nil
	}
	// The client that typed last sizes the PTYs (tmux's window-size
	// latest); a read-only one never does.
	if v.m.active != v && !v.readOnly && v.m.viewByID(v.id) == v {
		v.m.active = v
		v.m.syncTheme()
		cmd = tea.Batch(cmd, v.relayout())
	}
	return cmd
}

// show hands the view's frame to its Terminal, if it has one.
func (v *view) show() {
	if v.term == nil || v.width <= 0 || v.height <= 0 {
		return
	}
	lines, cuts, cursor := v.composeParts()
	v.passCursorColor()
	if v.m.echoed {
		if v.term.ShowNow(lines, cuts, cursor, v.width) {
			v.m.echoWritten = true
		}
		return
	}
	v.term.ShowParts(lines, cuts, cursor, v.width)
}

func (v *view) focused() *mux.Pane {
	if i := v.focusIndex(); i >= 0 {
		return v.m.Grid()[i]
	}
	return nil
}

// focusIndex is where the focused pane is in m.Grid(): the first pane
// until the view focused one, and -1 with no pane at all.
func (v *view) focusIndex() int {
	if i := v.m.IndexOf(v.focusKey); i >= 0 {
		return i
	}
	return min(0, len(v.m.Grid())-1)
}

// paneRemoved forgets pane key, which stood at index i: a view that
// focused it focuses the pane that takes its place, or the one before
// it when it was the last.
func (v *view) paneRemoved(key, i int) tea.Cmd {
	delete(v.panes, key)
	if v.focusKey == key && len(v.m.Grid()) > 0 {
		v.focusKey = v.m.Grid()[min(i, len(v.m.Grid())-1)].Key()
	}
	if v.closing(key) {
		v.modal = nil
	}
	return v.relayout()
}

// sizing reports whether this view's layout sizes the panes' screens.
func (v *view) sizing() bool { return v.m.active == v || v.m.active == nil && !v.readOnly }

func (v *view) setSize(w, h int) tea.Cmd {
	w, h = fitSize(w, h)
	if w <= 0 || h <= 1 {
		return nil // no room for a pane and the status line: wait for a real size
	}
	v.width, v.height = w, h
	if !v.m.Started() {
		v.m.layoutW, v.m.layoutH = w, h
		return v.m.StartAll()
	}
	return v.relayout()
}

// fitSize brings a terminal's size within termsize's bounds: whatever a
// transport let through, no view is laid out, composed or drawn larger
// (A10).
func fitSize(w, h int) (int, int) {
	w, h, _ = termsize.Clamp(w, h)
	return w, h
}

// relayout lays the view out again. The sizing client resizes the
// visible panes' emulators now and the PTYs debounced; every view then
// takes new frames of the panes whose screens changed.
func (v *view) relayout() tea.Cmd {
	if n := v.pageSize(); n > 0 {
		v.page = max(0, v.focusIndex()) / n // the page may hold fewer panes now, or none
	}
	idx, rects := v.pageRects()
	var cmd tea.Cmd
	if v.sizing() {
		resized := false
		for k, i := range idx {
			p := v.m.Grid()[i]
			if p.ResizeEmulator(bodySizeOf(rects[k])) {
				resized = true
				v.m.screenChanged(p)
			}
		}
		if resized {
			cmd = v.m.ResizePTYs()
		}
	}
	for _, i := range idx {
		p := v.m.Grid()[i]
		if s := v.pv(p); s.dirtyPending || s.frame.Cols != p.ScreenCols() {
			// Output came while it was off the page, or the screen was
			// resized for another client.
			s.dirtyPending = false
			v.takeFrame(p)
		}
	}
	return cmd
}

// screenChanged makes every view take a new frame of p: now if p is on
// its page, else when it is shown.
func (m *Model) screenChanged(p *mux.Pane) {
	for _, v := range m.views {
		if v.visible(m.IndexOf(p.Key())) {
			v.takeFrame(p)
		} else if s := v.panes[p.Key()]; s != nil {
			s.dirtyPending = true
		}
	}
}
