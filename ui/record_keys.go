package ui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"
)

// The recording keys of a view: prefix R, M, S and V (record_ctl.go has
// what they call, shared with the control requests).

// toggleRecording starts or stops recording the focused pane (prefix R).
func (v *view) toggleRecording() tea.Cmd {
	p := v.focused()
	if p == nil {
		return nil
	}
	if p.recs.rec != nil {
		return v.m.stopRecording(p, "", nil, v.id)
	}
	cmd, err := v.m.startRecording(p, "", 0, nil, v.id)
	if err != nil {
		v.notice = "not recorded: " + err.Error()
	}
	return cmd
}

// markRecording adds a marker to the focused pane's recording (prefix M).
func (v *view) markRecording() tea.Cmd {
	p := v.focused()
	if p == nil || p.recs.rec == nil {
		v.notice = "no recording to mark: prefix R records the pane"
		return nil
	}
	p.recs.markers++
	label := fmt.Sprintf("marker %d", p.recs.markers)
	p.recs.rec.Marker(label)
	v.notice = label
	return nil
}

// saveLastFocused saves the focused pane's ring (prefix S).
func (v *view) saveLastFocused() tea.Cmd {
	p := v.focused()
	if p == nil {
		return nil
	}
	cmd, err := v.m.saveLast(p, 0, "", nil, v.id)
	if err != nil {
		v.notice = "not saved: " + err.Error()
	}
	return cmd
}

// toggleViewRecording starts or stops recording this client's view
// (prefix V).
func (v *view) toggleViewRecording() tea.Cmd {
	if v.m.viewRecs[v.id] != nil {
		return v.m.stopViewRecording(v.id, "", nil, v.id)
	}
	cmd, err := v.m.startViewRecording(v.id, "", nil, v.id)
	if err != nil {
		v.notice = "not recorded: " + err.Error()
	}
	return cmd
}
