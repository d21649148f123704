package ssh

import (
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sandmux/sandmux/providers"
)

// Options are the ssh provider's settings for one sandbox, parsed from the
// provider's config table by ParseOptions.
type Options struct {
	// Host is the host name or address to connect to, without user or port.
	Host string
	// User is the remote login name.
	User string
	// Port is the TCP port of the SSH server.
	Port int
	// IdentityFiles are private key files to offer, ~ expanded. Nil means
	// the default files (~/.ssh/id_ed25519, id_ecdsa, id_rsa) that exist.
	IdentityFiles []string
	// KnownHosts are the known_hosts files host keys are checked against,
	// ~ expanded; the first is where the how-to-trust advice appends.
	KnownHosts []string
	// InsecureIgnoreHostKey accepts any host key. Open warns each time.
	InsecureIgnoreHostKey bool
	// Keepalive is how often a keepalive request is sent; zero turns them
	// off. Three unanswered intervals mark the connection dropped.
	Keepalive time.Duration
	// ConnectTimeout bounds the TCP connect and the SSH handshake together.
	ConnectTimeout time.Duration
}

// Addr returns host:port, bracketing IPv6 addresses.
func (o Options) Addr() string { return net.JoinHostPort(o.Host, strconv.Itoa(o.Port)) }

// Target returns user@host:port, for messages.
func (o Options) Target() string { return o.User + "@" + o.Addr() }

// Key describes one option key, for the config file's docs and checks.
type Key = providers.OptionKey

// OptionKeys lists every key ParseOptions accepts.
var OptionKeys = []Key{
	{Name: "host", Kind: "string", Note: "required",
		Help: `The SSH server to connect to: "host", "host:port" or "user@host:port" (a user or port here overrides the user and port keys).`},
	{Name: "user", Kind: "string", Note: "the user running sandmux",
		Help: "The remote login name."},
	{Name: "port", Kind: "integer, 1 to 65535", Default: int64(22),
		Help: "The SSH server's TCP port."},
	{Name: "identity_files", Kind: "array of strings", Note: "those of ~/.ssh/id_ed25519, ~/.ssh/id_ecdsa and ~/.ssh/id_rsa that exist",
		Help: "Unencrypted private keys to offer after the ssh-agent's keys (load encrypted keys into the agent with ssh-add)."},
	{Name: "known_hosts", Kind: "array of strings", Default: []any{"~/.ssh/known_hosts"},
		Help: "The known_hosts files that the server's host key must be listed in."},
	{Name: "insecure_ignore_host_key", Kind: "bool", Default: false,
		Help: "Accept any host key without checking it, which lets anyone on the network path impersonate the server; sandmux warns on every connection."},
	{Name: "keepalive", Kind: `duration, "0s" (off) or "100ms" to "1h"`, Default: "15s",
		Help: "How often to check that the connection is alive; after three unanswered checks the pane is marked disconnected."},
	{Name: "connect_timeout", Kind: `duration, "100ms" to "10m"`, Default: "10s",
		Help: "How long connecting and the SSH handshake may take together."},
}

// defaultIdentityFiles are tried, when they exist, if identity_files is not set.
var defaultIdentityFiles = []string{"~/.ssh/id_ed25519", "~/.ssh/id_ecdsa", "~/.ssh/id_rsa"}

// ParseOptions validates the ssh provider's options as decoded from TOML and
// fills in defaults. A key that is absent or holds its type's zero value
// ("", 0, empty array) takes its default. Every problem is reported, joined,
// each naming its key and what to write instead.
func ParseOptions(m map[string]any) (Options, error) {
	o := Options{Port: 22, Keepalive: 15 * time.Second, ConnectTimeout: 10 * time.Second}
	var errs []error
	fail := func(key string, err error) { errs = append(errs, fmt.Errorf("ssh option %s: %w", key, err)) }
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !slices.ContainsFunc(OptionKeys, func(o Key) bool { return o.Name == k }) {
			fail(k, fmt.Errorf("unknown key (the ssh provider's keys are %s)", keyNames()))
		}
	}
	var hostSpec string
	var err error
	if hostSpec, err = str(m, "host"); err != nil {
		fail("host", err)
	}
	if o.User, err = str(m, "user"); err != nil {
		fail("user", err)
	}
	if p, err := integer(m, "port", 1, 65535); err != nil {
		fail("port", err)
	} else if p != 0 {
		o.Port = p
	}
	if o.IdentityFiles, err = paths(m, "identity_files"); err != nil {
		fail("identity_files", err)
	}
	if o.KnownHosts, err = paths(m, "known_hosts"); err != nil {
		fail("known_hosts", err)
	}
	if b, ok := m["insecure_ignore_host_key"]; ok {
		if o.InsecureIgnoreHostKey, ok = b.(bool); !ok {
			fail("insecure_ignore_host_key", fmt.Errorf("%v is not a bool (write true or false)", b))
		}
	}
	if d, set, err := duration(m, "keepalive", 100*time.Millisecond, time.Hour, true); err != nil {
		fail("keepalive", err)
	} else if set {
		o.Keepalive = d
	}
	if d, set, err := duration(m, "connect_timeout", 100*time.Millisecond, 10*time.Minute, false); err != nil {
		fail("connect_timeout", err)
	} else if set {
		o.ConnectTimeout = d
	}
	if err := o.setHost(hostSpec); err != nil {
		fail("host", err)
	}
	if o.User == "" {
		o.User = currentUser()
	}
	if len(o.KnownHosts) == 0 {
		o.KnownHosts = []string{expandHome("~/.ssh/known_hosts")}
	}
	return o, errors.Join(errs...)
}

// setHost parses "host", "host:port" or "user@host:port" (IPv6 in brackets).
func (o *Options) setHost(spec string) error {
	if spec == "" {
		return errors.New(`missing: set host = "example.com" (or "user@example.com:22") in the ssh provider's table`)
	}
	if u, rest, ok := strings.Cut(spec, "@"); ok {
		if u == "" {
			return fmt.Errorf("%q has an empty user before @ (write user@host, or leave the user out)", spec)
		}
		o.User, spec = u, rest
	}
	host := spec
	if h, p, err := net.SplitHostPort(spec); err == nil {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("port %q is not a number from 1 to 65535", p)
		}
		host, o.Port = h, n
	} else if net.ParseIP(spec) == nil && strings.ContainsAny(spec, ":[]") {
		return fmt.Errorf("%q is not host, host:port or user@host:port (bracket IPv6 addresses: [::1]:22)", spec)
	}
	if host == "" || strings.ContainsAny(host, " \t/@") {
		return fmt.Errorf("%q is not a host name or address", spec)
	}
	o.Host = host
	return nil
}

func keyNames() string {
	names := make([]string, len(OptionKeys))
	for i, k := range OptionKeys {
		names[i] = k.Name
	}
	return strings.Join(names, ", ")
}

func str(m map[string]any, key string) (string, error) {
	v, ok := m[key]
	if !ok {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%v is not a string (write it in double quotes)", v)
	}
	return s, nil
}

// integer accepts the int64 TOML decodes and a plain int; 0 means unset.
func integer(m map[string]any, key string, lo, hi int) (int, error) {
	var n int64
	switch v := m[key].(type) {
	case nil:
		return 0, nil
	case int64:
		n = v
	case int:
		n = int64(v)
	default:
		return 0, fmt.Errorf("%v is not an integer (write a number without quotes)", v)
	}
	if n != 0 && (n < int64(lo) || n > int64(hi)) {
		return 0, fmt.Errorf("%d is out of range (write %d to %d)", n, lo, hi)
	}
	return int(n), nil
}

// paths accepts an array of strings ([]any from TOML, or []string) and
// expands ~/ in each; an empty array means unset.
func paths(m map[string]any, key string) ([]string, error) {
	var list []string
	switch v := m[key].(type) {
	case nil:
		return nil, nil
	case []string:
		list = v
	case []any:
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("element %v is not a string (write an array of quoted paths)", e)
			}
			list = append(list, s)
		}
	default:
		return nil, fmt.Errorf("%v is not an array of strings (write [\"~/.ssh/id_ed25519\"])", v)
	}
	out := make([]string, 0, len(list))
	for _, s := range list {
		if s == "" {
			return nil, errors.New("an empty path (remove it)")
		}
		out = append(out, expandHome(s))
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// duration accepts a duration string ("15s") or a time.Duration; "" means
// unset. zeroOK allows "0s", which turns the feature off.
func duration(m map[string]any, key string, lo, hi time.Duration, zeroOK bool) (time.Duration, bool, error) {
	var d time.Duration
	switch v := m[key].(type) {
	case nil:
		return 0, false, nil
	case time.Duration:
		d = v
	case string:
		if v == "" {
			return 0, false, nil
		}
		var err error
		if d, err = time.ParseDuration(v); err != nil {
			return 0, false, fmt.Errorf("%q is not a duration (write a number with a unit, e.g. \"15s\")", v)
		}
	default:
		return 0, false, fmt.Errorf("%v is not a duration (write a quoted number with a unit, e.g. \"15s\")", v)
	}
	if (d == 0 && zeroOK) || (d >= lo && d <= hi) {
		return d, true, nil
	}
	return 0, false, fmt.Errorf("%v is out of range (write %v to %v)", d, lo, hi)
}

// expandHome replaces a leading ~/ with the home directory.
func expandHome(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return p
}

func currentUser() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return os.Getenv("USER")
}

// Descriptor registers the ssh provider: its workspace is on the host,
// read and written as tar streams.
var Descriptor = providers.Descriptor{
	Name:         "ssh",
	New:          func(d providers.Deps) providers.Provider { return New(d.Warn) },
	OptionKeys:   OptionKeys,
	CheckOptions: providers.CheckWith(ParseOptions),
	Workspace:    providers.WorkspaceStream,
}
