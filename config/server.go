package config

import (
	"errors"
	"fmt"
	"net"
)

// ServerConfig is [server]: how a sandmux server treats its clients.
type ServerConfig struct {
	// OnHangup is what a client whose terminal went away does: "detach"
	// (the sessions run on) or "quit" (as the TUI did before servers).
	OnHangup string
	// SSHListen is the address SSH clients attach on ("127.0.0.1:2222");
	// "" serves no SSH.
	SSHListen string
	// SSHAuthorizedKeys and SSHReadOnlyKeys are authorized_keys files:
	// keys that may attach, and keys that may only watch.
	SSHAuthorizedKeys, SSHReadOnlyKeys string
	// HTTPListen is the address browsers open the web client on
	// ("127.0.0.1:8022"); "" serves none.
	HTTPListen string
	// HTTPAllowRemote lets HTTPListen be an address other machines reach.
	HTTPAllowRemote bool
}

var serverOptions = []option[ServerConfig]{
	{table: "server", key: "on_hangup", def: "detach",
		help: `What a client whose terminal goes away (a closed window, a dropped SSH connection) does: "detach" leaves the sessions running, "quit" tears everything down.`,
		kind: stringKind(func(s *ServerConfig) *string { return &s.OnHangup }, hangupMode)},
	{table: "server", key: "ssh_listen", def: "",
		help: `The address SSH clients attach on with a public key, such as "127.0.0.1:2222"; "" serves no SSH.`,
		kind: stringKind(func(s *ServerConfig) *string { return &s.SSHListen }, listenAddr)},
	{table: "server", key: "ssh_authorized_keys", def: "",
		help: "An authorized_keys file: the keys that may attach over SSH and type.",
		kind: stringKind(func(s *ServerConfig) *string { return &s.SSHAuthorizedKeys }, nil)},
	{table: "server", key: "ssh_read_only_keys", def: "",
		help: "An authorized_keys file: the keys that may attach over SSH to watch, never to type, close or quit.",
		kind: stringKind(func(s *ServerConfig) *string { return &s.SSHReadOnlyKeys }, nil)},
	{table: "server", key: "http_listen", def: "",
		help: `The address browsers open the web client on, such as "127.0.0.1:8022"; "" serves none (each page needs a token from sandmux ctl token new).`,
		kind: stringKind(func(s *ServerConfig) *string { return &s.HTTPListen }, listenAddr)},
	{table: "server", key: "http_allow_remote", def: false,
		help: "Lets http_listen be an address other machines reach; it serves plain HTTP, so put it behind TLS (a reverse proxy, an SSH tunnel).",
		kind: boolKind(func(s *ServerConfig) *bool { return &s.HTTPAllowRemote })},
}

func boolKind[T any](field func(*T) *bool) kind[T] {
	return kind[T]{
		typ: "boolean",
		set: func(t *T, v any) error {
			b, ok := v.(bool)
			if !ok {
				return fmt.Errorf("%s is not a boolean (write true or false, without quotes)", literal(v))
			}
			*field(t) = b
			return nil
		},
		get: func(t *T) any { return *field(t) },
	}
}

// IsLoopback says whether a host:port listen address is reached only from
// this machine: a loopback IP or "localhost". An empty or unspecified
// host ("0.0.0.0", "::", ":8022") listens on every interface.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func hangupMode(v string) (string, error) {
	if v != "detach" && v != "quit" {
		return "", errors.New(`is not a hangup action (write "detach" or "quit")`)
	}
	return v, nil
}

func listenAddr(v string) (string, error) {
	if v == "" {
		return v, nil
	}
	if _, _, err := net.SplitHostPort(v); err != nil {
		return "", errors.New(`is not a host:port address (write e.g. "127.0.0.1:2222")`)
	}
	return v, nil
}

// checkServer checks [server] as a whole: SSH needs a key file.
func (c *Config) checkServer(p *problems) {
	for _, o := range serverOptions {
		checkOption(p, "server."+o.key, o, &c.Server)
	}
	s := c.Server
	if s.SSHListen != "" && s.SSHAuthorizedKeys == "" && s.SSHReadOnlyKeys == "" {
		p.add("server.ssh_listen", errors.New("needs ssh_authorized_keys or ssh_read_only_keys: nobody could attach"))
	}
	if s.HTTPListen != "" && !s.HTTPAllowRemote && !IsLoopback(s.HTTPListen) {
		p.add("server.http_listen", fmt.Errorf("%q is reached from other machines: listen on 127.0.0.1, or set http_allow_remote = true (and put it behind TLS)", s.HTTPListen))
	}
}
