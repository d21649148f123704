package ui

import (
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
	if p.Recording() {
		return v.m.StopRecordingOf(p, "", nil, v.id)
	}
	cmd, err := v.m.StartRecordingOf(p, "", 0, nil, v.id)
	if err != nil {
		v.notice = "not recorded: " + err.Error()
	}
	return cmd
}

// markRecording adds a marker to the focused pane's recording (prefix M).
func (v *view) markRecording() tea.Cmd {
	p := v.focused()
	label, ok := "", false
	if p != nil {
		label, ok = p.Mark()
	}
	if !ok {
		v.notice = "no recording to mark: prefix R records the pane"
		return nil
	}
	v.notice = label
	return nil
}

// saveLastFocused saves the focused pane's ring (prefix S).
func (v *view) saveLastFocused() tea.Cmd {
	p := v.focused()
	if p == nil {
		return nil
	}
	cmd, err := v.m.SaveLastOf(p, 0, "", nil, v.id)
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
