package server

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sandmux/sandmux/control"
)

func (f *fakeCore) Record(_ context.Context, r RecordRequest) (string, error) {
	f.record("record %s id=%s view=%v client=%d file=%s idle=%v label=%s", r.Action, r.ID, r.View, r.Client, r.File, r.IdleLimit, r.Label)
	if r.File == "" {
		return "/rec/default.cast", nil
	}
	return r.File, nil
}

func (f *fakeCore) SaveLast(_ context.Context, id string, d time.Duration, file string) (string, error) {
	f.record("save-last %s %v %s", id, d, file)
	return file, nil
}

// The handler checks what each record action takes before the core is
// asked, resolves the session, and answers with the file.
func TestCtlRecord(t *testing.T) {
	h := serve(t)
	ok := []struct {
		req  control.Request
		file string
	}{
		{control.Request{Op: control.OpRecord, Action: "start", Session: "1", File: "/tmp/a.cast", IdleLimit: control.Duration(time.Second)}, "/tmp/a.cast"},
		{control.Request{Op: control.OpRecord, Action: "marker", Session: "a1", Label: "here"}, "/rec/default.cast"},
		{control.Request{Op: control.OpRecord, Action: "pause", Session: "a1"}, "/rec/default.cast"},
		{control.Request{Op: control.OpRecord, Action: "start", View: true, Client: 2}, "/rec/default.cast"},
		{control.Request{Op: control.OpRecord, Action: "stop", View: true}, "/rec/default.cast"},
		{control.Request{Op: control.OpSaveLast, Session: "b2", File: "/tmp/l.cast", Duration: control.Duration(time.Minute)}, "/tmp/l.cast"},
	}
	for _, tt := range ok {
		if rep := h.must(t, tt.req); rep.File != tt.file {
			t.Errorf("%s %s: file %q, want %q", tt.req.Op, tt.req.Action, rep.File, tt.file)
		}
	}
	want := []string{
		"record start id=a1 view=false client=0 file=/tmp/a.cast idle=1s label=",
		"record marker id=a1 view=false client=0 file= idle=0s label=here",
		"record pause id=a1 view=false client=0 file= idle=0s label=",
		"record start id= view=true client=2 file= idle=0s label=",
		"record stop id= view=true client=0 file= idle=0s label=",
		"save-last b2 1m0s /tmp/l.cast",
	}
	if got := h.core.Calls(); !slices.Equal(got, want) {
		t.Errorf("core calls:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	refused := []struct {
		req control.Request
		msg string
	}{
		{control.Request{Op: control.OpRecord, Action: "rewind", Session: "1"}, "record takes an action"},
		{control.Request{Op: control.OpRecord, Action: "start", Session: "1", View: true}, "not a session"},
		{control.Request{Op: control.OpRecord, Action: "pause", View: true}, "only starts and stops"},
		{control.Request{Op: control.OpRecord, Action: "start", Session: "1", Client: 2}, "give --view with it"},
		{control.Request{Op: control.OpRecord, Action: "start", Session: "1", File: "rel.cast"}, "not absolute"},
		{control.Request{Op: control.OpRecord, Action: "stop", Session: "1", File: "/x.cast"}, "give it to start"},
		{control.Request{Op: control.OpRecord, Action: "stop", Session: "1", IdleLimit: control.Duration(time.Second)}, "--idle-limit"},
		{control.Request{Op: control.OpRecord, Action: "start", Session: "1", Label: "x"}, "a label is a marker's"},
		{control.Request{Op: control.OpRecord, Action: "marker", Session: "1", Label: strings.Repeat("x", maxLabel+1)}, "at most"},
		{control.Request{Op: control.OpRecord, Action: "start", Session: "web"}, "ambiguous"},
		{control.Request{Op: control.OpRecord, Action: "start"}, "name a session"},
		{control.Request{Op: control.OpSaveLast, Session: "1", File: "l.cast"}, "not absolute"},
	}
	for _, tt := range refused {
		if _, err := h.call(t, tt.req); err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s %+v: %v, want an error containing %q", tt.req.Op, tt.req, err, tt.msg)
		}
	}
	if got := h.core.Calls(); len(got) != len(want) {
		t.Errorf("refused requests reached the core: %q", got[len(want):])
	}
	_ = fmt.Sprint()
}
