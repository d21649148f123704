package config

import (
	"strings"
	"testing"
)

// TestContract_A22_WebListenLoopbackUnlessAllowed: http_listen on an
// address other machines reach is refused unless http_allow_remote says
// so.
func TestContract_A22_WebListenLoopbackUnlessAllowed(t *testing.T) {
	for _, tt := range []struct {
		toml string
		ok   bool
	}{
		{`http_listen = "127.0.0.1:8022"`, true},
		{`http_listen = "[::1]:8022"`, true},
		{`http_listen = "localhost:0"`, true},
		{`http_listen = "0.0.0.0:8022"`, false},
		{`http_listen = ":8022"`, false},
		{`http_listen = "192.0.2.7:8022"`, false},
		{"http_listen = \"0.0.0.0:8022\"\nhttp_allow_remote = true", true},
		{`http_listen = "nowhere"`, false},
		{`http_allow_remote = "yes"`, false},
	} {
		c, err := parseConfig("c.toml", []byte("[[sandbox]]\nname = \"s\"\n[server]\n"+tt.toml+"\n"))
		if tt.ok && err != nil {
			t.Errorf("%q: %v", tt.toml, err)
		}
		if !tt.ok && (err == nil || !strings.Contains(err.Error(), "server.http_")) {
			t.Errorf("%q: want an error at server.http_*, got %v (%+v)", tt.toml, err, c)
		}
	}
}
