package config

import (
	"errors"
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
}
