package ui

import (
	"context"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/session/vt"
)

// Search across panes (prefix /): a modal with a query line and the
// matching lines of every pane's screen and scrollback. Typing edits the
// query; 100 ms after the last key (or at once on enter) a command
// searches every pane off the model's loop, spread over GOMAXPROCS
// workers, and its results come back tagged with the query's generation,
// so those of an older query are dropped. Enter on a result focuses its
// pane (its page follows) and opens its scrollback at the match, with the
// pane's scrollback search set to the query so n and N go on from there.
//
//	key ─► findInput: query edited, gen++ ─► after(findDebounce) ─► findTickMsg{gen}
//	findTickMsg (gen current) ─► vt.Compile ─► searchPanes in a Cmd ─► findResultsMsg{gen}
//	findResultsMsg (gen current) ─► results shown; enter ─► openFound

const (
	// findDebounce is how long typing must pause before a search runs.
	findDebounce = 100 * time.Millisecond
	// maxFound bounds the results kept and shown; more shows as "1000+".
	maxFound = 1000
	// maxFindQuery bounds the query, in bytes.
	maxFindQuery = 256
)

// findState is one view's search across panes.
type findState struct {
	query string
	gen   int // bumped by every edit of the query
	// done is the generation of the results shown; running, that of the
	// search under way (0: none), which cancel ends.
	done, running int
	cancel        context.CancelFunc
	err           error // the query does not compile
	found         []found
	more          bool // the search stopped at maxFound
	sel, top      int  // the selected result and the first one shown
}

// found is one matching line of one pane.
type found struct {
	key int // the pane's key
	vt.Match
}

// findTickMsg says typing paused: search for generation gen of the query.
type findTickMsg struct{ view, gen int }

// findResultsMsg carries the results of a search for generation gen.
type findResultsMsg struct {
	view, gen int
	found     []found
	more      bool
}

func (v *view) openFind() tea.Cmd {
	v.closeFind()
	v.modal = &findState{}
	return nil
}

func (v *view) closeFind() {
	if f := v.find(); f != nil {
		if f.cancel != nil {
			f.cancel()
		}
		v.modal = nil
	}
}

// findKeys are the keys of the modal that are not typing.
var findKeys = map[string]func(v *view, f *findState) tea.Cmd{
	"esc":       func(v *view, f *findState) tea.Cmd { v.closeFind(); return nil },
	"ctrl+c":    func(v *view, f *findState) tea.Cmd { v.closeFind(); return nil },
	"enter":     (*view).findEnter,
	"up":        func(v *view, f *findState) tea.Cmd { f.move(-1, v.findRows()); return nil },
	"down":      func(v *view, f *findState) tea.Cmd { f.move(1, v.findRows()); return nil },
	"pgup":      func(v *view, f *findState) tea.Cmd { f.move(-v.findRows(), v.findRows()); return nil },
	"pgdown":    func(v *view, f *findState) tea.Cmd { f.move(v.findRows(), v.findRows()); return nil },
	"backspace": func(v *view, f *findState) tea.Cmd { return v.editFind(dropLastRune(f.query)) },
}

// findInput handles a key of the modal.
func (v *view) findInput(msg tea.KeyPressMsg) tea.Cmd {
	f := v.find()
	if f == nil {
		v.modal = nil
		return nil
	}
	if fn, ok := findKeys[msg.String()]; ok {
		return fn(v, f)
	}
	if msg.Text == "" || len(f.query)+len(msg.Text) > maxFindQuery {
		return nil
	}
	return v.editFind(f.query + msg.Text)
}

func dropLastRune(s string) string {
	r := []rune(s)
	if len(r) == 0 {
		return s
	}
	return string(r[:len(r)-1])
}

// editFind sets the query and arms the debounce for its new generation.
func (v *view) editFind(q string) tea.Cmd {
	f := v.find()
	if len(q) > maxFindQuery {
		q = strings.ToValidUTF8(q[:maxFindQuery], "") // a paste may be long
	}
	if q == f.query {
		return nil
	}
	f.query = q
	f.gen++
	id, gen := v.id, f.gen
	return v.m.After(findDebounce, findTickMsg{view: id, gen: gen})
}

// findEnter opens the selected result when the results are the query's,
// else searches at once.
func (v *view) findEnter(f *findState) tea.Cmd {
	if f.done == f.gen && f.gen > 0 {
		if f.sel < len(f.found) {
			return v.openFound(f.found[f.sel], f.query)
		}
		return nil
	}
	return v.startFind()
}

// handleFind routes the search's messages to their view.
func (m *Model) handleFind(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case findTickMsg:
		if v := m.viewByID(msg.view); v != nil && v.find() != nil && v.find().gen == msg.gen {
			return v.startFind()
		}
	case findResultsMsg:
		v := m.viewByID(msg.view)
		if v == nil || v.find() == nil || v.find().gen != msg.gen || v.find().running != msg.gen {
			return nil // an older query's, or the modal closed
		}
		f := v.find()
		f.running, f.cancel, f.done = 0, nil, msg.gen
		f.found, f.more, f.sel, f.top = msg.found, msg.more, 0, 0
	}
	return nil
}

// startFind compiles the query and searches every pane in a command. A
// search of an older query still under way is cancelled.
func (v *view) startFind() tea.Cmd {
	f := v.find()
	if f.running == f.gen || f.done == f.gen {
		return nil
	}
	if f.cancel != nil {
		f.cancel()
		f.cancel = nil
	}
	matcher, err := vt.Compile(f.query)
	f.err = err
	if f.query == "" {
		f.err = nil // nothing typed yet is no error
	}
	if err != nil {
		f.running, f.done, f.found, f.more = 0, f.gen, nil, false
		return nil
	}
	var targets []findTarget
	for _, p := range v.m.Grid() {
		if p.Screen() != nil {
			targets = append(targets, findTarget{p.Key(), p.Screen()})
		}
	}
	ctx, cancel := context.WithCancel(v.m.Ctx())
	f.running, f.cancel = f.gen, cancel
	id, gen := v.id, f.gen
	return func() tea.Msg {
		defer cancel()
		found, more := searchPanes(ctx, targets, matcher, maxFound)
		return findResultsMsg{view: id, gen: gen, found: found, more: more}
	}
}

// findTarget is a pane's screen as the search command takes it.
type findTarget struct {
	key    int
	screen *vt.Screen
}

// searchPanes searches each target's screen on up to GOMAXPROCS workers
// and returns the matches in the targets' order, at most limit, and
// whether there were more. It returns once every worker has; a cancelled
// ctx stops them between screens.
func searchPanes(ctx context.Context, targets []findTarget, m *vt.Matcher, limit int) ([]found, bool) {
	per := make([][]vt.Match, len(targets))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(targets)) {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= len(targets) {
					return
				}
				per[i] = targets[i].screen.Search(m, limit+1, nil)
			}
		})
	}
	wg.Wait()
	var out []found
	for i, ms := range per {
		for _, r := range ms {
			if len(out) == limit {
				return out, true
			}
			out = append(out, found{targets[i].key, r})
		}
	}
	return out, false
}

// openFound focuses the result's pane and opens its scrollback at the
// match: the pane's own search takes the query, so n and N go on from it.
func (v *view) openFound(r found, query string) tea.Cmd {
	i := v.m.IndexOf(r.key)
	v.closeFind()
	if i < 0 {
		v.notice = "that pane is gone"
		return nil
	}
	matcher, err := vt.Compile(query)
	if err != nil {
		return nil // it compiled for the search
	}
	cmd := v.setFocus(i)
	p := v.m.Grid()[i]
	if p.Screen() == nil {
		return cmd
	}
	v.scrollMode = true
	s := v.pv(p)
	s.search = &searchState{query: query, matcher: matcher, match: -1}
	// Lines move up as the ring turns: the match is at r.Line or older
	// now, unless the pane was cleared or restarted since.
	m, ok := p.Screen().SearchFrom(matcher, r.Line, -1)
	if !ok {
		m, ok = p.Screen().SearchFrom(matcher, r.Line, 1)
	}
	if ok {
		v.showMatch(p, m)
	} else {
		s.search.notFound = true
		v.takeFrame(p)
	}
	return cmd
}

// move moves the selection by d results, and the list so that the
// selection shows among its rows.
func (f *findState) move(d, rows int) {
	if len(f.found) == 0 {
		return
	}
	f.sel = min(max(f.sel+d, 0), len(f.found)-1)
	f.scrollTo(rows)
}

func (f *findState) scrollTo(rows int) {
	if f.sel < f.top {
		f.top = f.sel
	}
	if f.sel >= f.top+rows {
		f.top = f.sel - rows + 1
	}
}
