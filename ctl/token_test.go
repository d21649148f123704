package ctl

import (
	"testing"
	"time"

	"github.com/sandmux/sandmux/control"
)

func TestCtlTokenArgs(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want control.Request
	}{
		{[]string{"new"}, control.Request{Op: control.OpTokenNew}},
		{[]string{"new", "--read-only", "--ttl", "2h", "--name", "demo"},
			control.Request{Op: control.OpTokenNew, ReadOnly: true, TTL: control.Duration(2 * time.Hour), Name: "demo"}},
		{[]string{"ls"}, control.Request{Op: control.OpTokenLs}},
		{[]string{"revoke", "0a1b2c3d"}, control.Request{Op: control.OpTokenRevoke, Token: "0a1b2c3d"}},
	} {
		got, err := parseCtl("token", tt.args)
		if err != nil || got.Op != tt.want.Op || got.ReadOnly != tt.want.ReadOnly || got.TTL != tt.want.TTL || got.Name != tt.want.Name || got.Token != tt.want.Token {
			t.Errorf("token %q: %+v, %v; want %+v", tt.args, got, err, tt.want)
		}
	}
	for _, args := range [][]string{{}, {"new", "x"}, {"ls", "--read-only"}, {"revoke"}, {"revoke", "a", "b"}, {"nope"}, {"new", "--ttl", "-1h"}} {
		if req, err := parseCtl("token", args); err == nil {
			t.Errorf("token %q parsed as %+v", args, req)
		}
	}
}
