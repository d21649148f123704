package ui

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/sandmux/sandmux/mux"
	"github.com/sandmux/sandmux/providers"
)

// listNames are the names of the session list's rows, in order.
func listNames(m *Model) []string {
	var names []string
	for _, r := range m.lv().sessionRows() {
		names = append(names, r.info.Name)
	}
	return names
}

func openList(t *testing.T, m *Model) {
	t.Helper()
	press(m, "ctrl+b")
	press(m, "w")
	if m.lv().modalKind() != modalList {
		t.Fatalf("prefix w opened modal %v, want the session list", m.lv().modalKind())
	}
}

// selectPane moves the list's selection to the row of the pane named name.
func selectPane(t *testing.T, m *Model, name string) {
	t.Helper()
	press(m, "home")
	for range len(m.Grid()) {
		rows := m.lv().sessionRows()
		if rows[m.lv().sessions().selected(rows)].info.Name == name {
			return
		}
		press(m, "down")
	}
	t.Fatalf("no row for %s in %v", name, listNames(m))
}

func TestSessionListFailedFirstThenGridOrder(t *testing.T) {
	b := newFakeBackend()
	b.StartErr["cpane"] = errFailedStart
	m := newTestModel(t, b, 4, 160, 40)
	openList(t, m)
	if got, want := listNames(m), []string{"cpane", "apane", "bpane", "dpane"}; !slices.Equal(got, want) {
		t.Errorf("rows %v, want %v", got, want)
	}
	text := ansi.Strip(m.lv().sessionsText())
	for _, want := range []string{"cpane", "failed", "connection refused", "Sessions: 4"} {
		if !strings.Contains(text, want) {
			t.Errorf("list lacks %q:\n%s", want, text)
		}
	}
}

func TestSessionRowsWaitingThenFailedFirst(t *testing.T) {
	var rows []sessionRow
	for k, st := range []string{"working", "failed", "idle", "waiting", "done", "waiting", "failed"} {
		rows = append(rows, sessionRow{key: k, info: PaneInfo{State: st}})
	}
	sortSessionRows(rows)
	var keys []int
	for _, r := range rows {
		keys = append(keys, r.key)
	}
	if want := []int{3, 5, 1, 6, 0, 2, 4}; !slices.Equal(keys, want) {
		t.Errorf("order %v, want %v (waiting, failed, then the rest, each stable)", keys, want)
	}
}

func TestSessionListFilters(t *testing.T) {
	b := newFakeBackend()
	b.StartErr["dpane"] = errFailedStart
	m := newTestModel(t, b, 4, 160, 40)
	openList(t, m)
	for _, k := range []string{"C", "p", "A"} { // not x, k or r: typing starts the filter
		press(m, k)
	}
	if got := listNames(m); !slices.Equal(got, []string{"cpane"}) {
		t.Errorf("filter %q: rows %v, want cpane only (case-insensitive)", m.lv().sessions().filter, got)
	}
	press(m, "esc") // drops the filter
	press(m, "/")
	for _, k := range []string{"r", "e", "f", "u", "s"} { // the reason of the failed start
		press(m, k)
	}
	if got := listNames(m); !slices.Equal(got, []string{"dpane"}) {
		t.Errorf("filter %q: rows %v, want dpane", m.lv().sessions().filter, got)
	}
	press(m, "backspace")
	if f := m.lv().sessions().filter; f != "refu" {
		t.Errorf("after backspace the filter is %q", f)
	}
	press(m, "esc")
	press(m, "esc")
	if m.lv().modalKind() != modalNone {
		t.Error("esc without a filter did not close the list")
	}
}

func TestSessionListEnterFocusesPaneOnAnotherPage(t *testing.T) {
	b := newFakeBackend()
	m := newTestModel(t, b, 20, 80, 24)
	v := m.lv()
	n := v.pageSize()
	if n >= len(m.Grid()) {
		t.Fatalf("all %d panes fit one page of %d: the test proves nothing", len(m.Grid()), n)
	}
	target := len(m.Grid()) - 1
	name := m.Grid()[target].Spec().Name
	openList(t, m)
	selectPane(t, m, name)
	press(m, "enter")
	if v.modalKind() != modalNone || v.focusIndex() != target || v.page != target/n {
		t.Errorf("after enter: modal %v, focus %d, page %d; want the list closed, focus %d, page %d", v.modalKind(), v.focusIndex(), v.page, target, target/n)
	}
	if !strings.Contains(ansi.Strip(content(m)), name) {
		t.Errorf("%s is not on screen after enter", name)
	}
}

func TestSessionListActsOnSelected(t *testing.T) {
	b := newFakeBackend()
	m := newTestModel(t, b, 3, 160, 40)
	openList(t, m)
	selectPane(t, m, "bpane")
	for _, msg := range runCmd(press(m, "k")) {
		m.Update(msg)
	}
	if p := m.Grid()[1]; p.Phase() != mux.PhaseKilled || m.lv().focusIndex() != 0 {
		t.Fatalf("k in the list: bpane is %s, focus %d; want bpane killed, focus kept on 0", p.Status(), m.lv().focusIndex())
	}
	if m.Grid()[0].Phase() != mux.PhaseRunning || m.Grid()[2].Phase() != mux.PhaseRunning {
		t.Error("k reached another pane than the selected one")
	}
	killed := m.Grid()[1].Screen()
	msgs := runCmd(press(m, "r"))
	if m.Grid()[1].Screen() == killed || m.Grid()[1].Phase() != mux.PhaseStarting {
		t.Errorf("r in the list did not restart bpane: %s", m.Grid()[1].Status())
	}
	for _, msg := range msgs {
		m.Update(msg)
	}
	selectPane(t, m, "cpane")
	for _, msg := range runCmd(pressX(m)) {
		_, after := m.Update(msg)
		runCmd(after) // closes the removed pane's screen
	}
	if got := paneNames(m); !slices.Equal(got, []string{"apane", "bpane"}) {
		t.Errorf("after x on cpane the panes are %v", got)
	}
	if m.lv().modalKind() != modalList {
		t.Errorf("the list closed after x (modal %v)", m.lv().modalKind())
	}
}

func paneNames(m *Model) []string {
	var names []string
	for _, p := range m.Grid() {
		names = append(names, p.Spec().Name)
	}
	return names
}

func TestSessionListReadOnlyActsOnNothing(t *testing.T) {
	b := newFakeBackend()
	m := newTestModel(t, b, 3, 160, 40)
	m.Update(AttachMsg{ID: 7, Width: 160, Height: 40, ReadOnly: true})
	send := func(key string) {
		m.Update(ClientMsg{ID: 7, Msg: keyMsg(key)})
	}
	send("ctrl+b")
	send("w")
	v := m.viewByID(7)
	if v.modalKind() != modalList {
		t.Fatal("a read-only client may list the sessions")
	}
	before := b.Total()
	for _, k := range []string{"down", "x", "k", "r"} {
		send(k)
	}
	if b.Total() != before || m.Grid()[1].Phase() != mux.PhaseRunning || v.notice != "read-only" {
		t.Errorf("a read-only client acted: %d backend calls, bpane %s, notice %q", b.Total()-before, m.Grid()[1].Status(), v.notice)
	}
	send("enter")
	if v.focusIndex() != 1 || m.lv().focusIndex() != 0 {
		t.Errorf("enter from a read-only list: its focus %d, the other client's %d; want 1 and 0", v.focusIndex(), m.lv().focusIndex())
	}
}

func TestSessionListEscapesHostileText(t *testing.T) {
	m, _ := hostileModel(t)
	openList(t, m)
	text := m.lv().sessionsText()
	if why := chromeUnsafe(text); why != "" {
		t.Errorf("the list holds %s:\n%q", why, text)
	}
	if !strings.Contains(stripSGR(text), `evil\x1b]0;pwned\x07-no`) {
		t.Errorf("the list lacks the escaped name:\n%s", stripSGR(text))
	}
	if why := chromeUnsafe(content(m)); why != "" {
		t.Errorf("the view with the list holds %s", why)
	}
}

func TestSessionListFitsSmallTerminals(t *testing.T) {
	b := newFakeBackend()
	m := newTestModel(t, b, 12, 40, 10)
	v := m.lv()
	openList(t, m)
	// Every pane at 12% of a core and 5 MiB, from one sample: 1.2 s of
	// CPU in the 10 s since its session started.
	b.Mu.Lock()
	for _, s := range b.Sessions {
		s.Live.Started = time.Now().Add(-10 * time.Second)
		s.Use = &providers.Usage{CPU: 1200 * time.Millisecond, RSS: 5 << 20}
	}
	b.Mu.Unlock()
	m.Update(m.ListInfos()())
	m.Update(m.SampleUsageNow()())
	for _, p := range m.Grid() {
		if info := m.InfoAt(m.IndexOf(p.Key())); !info.HasUsage || info.CPUPercent < 11.5 || info.CPUPercent > 12.5 {
			t.Fatalf("test setup: %s's usage %+v, want 12%%", p.Spec().Name, info)
		}
	}
	press(m, "end")
	text := ansi.Strip(v.sessionsText())
	lines := strings.Split(text, "\n")
	if len(lines) > v.height-1 {
		t.Errorf("the list is %d rows tall in a terminal of %d", len(lines), v.height)
	}
	for _, l := range lines {
		if w := ansi.StringWidth(l); w > v.width {
			t.Errorf("a line is %d cells wide in a terminal of %d: %q", w, v.width, l)
		}
	}
	if !strings.Contains(text, "lpane") || strings.Contains(text, "apane") {
		t.Errorf("end should scroll to the last pane:\n%s", text)
	}
	if strings.Contains(text, "mem") {
		t.Errorf("40 columns should drop the memory column:\n%s", text)
	}
	v.width = 160
	if wide := ansi.Strip(v.sessionsText()); !strings.Contains(wide, "12%") || !strings.Contains(wide, "5.0M") {
		t.Errorf("a wide list lacks the CPU and memory:\n%s", wide)
	}
}

func TestSinceAndBytesText(t *testing.T) {
	now := fixedNow()
	for _, tc := range []struct {
		ago  time.Duration
		want string
	}{{12 * time.Second, "12s ago"}, {3*time.Minute + 5*time.Second, "3m ago"}, {5 * time.Hour, "5h ago"}, {72 * time.Hour, "3d ago"}} {
		if got := sinceText(now, now.Add(-tc.ago)); got != tc.want {
			t.Errorf("sinceText(%v) = %q, want %q", tc.ago, got, tc.want)
		}
	}
	if got := sinceText(now, time.Time{}); got != "" {
		t.Errorf("an unknown since reads %q", got)
	}
	for n, want := range map[int64]string{512: "512B", 812 << 10: "812K", 3481 << 10: "3.4M", 5 << 30: "5.0G"} {
		if got := humanBytes(n); got != want {
			t.Errorf("humanBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestUsageRedrawsOnlyTheList: a sample redraws nothing unless some
// client shows the session list.
func TestUsageRedrawsOnlyTheList(t *testing.T) {
	b := newFakeBackend()
	m := newTestModel(t, b, 2, 160, 40)
	sample := m.SampleUsageNow()() // a round of samples, as the timer's command returns it
	if !quiet(sample) {
		t.Fatal("usage samples must be quiet")
	}
	m.Redrawn()
	m.update(sample)
	if m.Redrawn() {
		t.Error("a sample redraws with the list closed")
	}
	openList(t, m)
	m.update(sample)
	if !m.Redrawn() {
		t.Error("a sample does not redraw the open list")
	}
}

// Opening the session list samples every running pane's usage at once,
// in a command.
func TestSessionListSamplesUsage(t *testing.T) {
	b := newFakeBackend()
	m := newTestModel(t, b, 2, 160, 40)
	press(m, "ctrl+b")
	cmd := send(m, keyMsg("w"))
	if m.lv().modalKind() != modalList || cmd == nil {
		t.Fatalf("the session list: modal %v, command %v; want the list and a sample", m.lv().modalKind(), cmd != nil)
	}
	before := b.Calls["Usage"]
	for _, msg := range runCmd(cmd) {
		m.Update(msg)
	}
	if got := b.Calls["Usage"] - before; got != 2 {
		t.Errorf("opening the list sampled %d panes, want both", got)
	}
}
