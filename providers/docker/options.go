package docker

import (
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/moby/moby/client"

	"github.com/sandmux/sandmux/providers"
)

// Options are the docker provider's settings for one sandbox, from
// Spec.Options. Exactly one of Container and Image is set.
type Options struct {
	// Container is the name or id of a running container to exec into.
	Container string
	// Image is the image of a container to create for the sandbox.
	Image string
	// Workdir is the workspace inside the container: where an image's
	// container mounts Spec.Dir, and the working directory of the shell.
	// Empty (only with Container) means the container's own.
	Workdir string
	// RemoveOnClose removes a container created from Image when the PTY is
	// closed. A container sandmux did not create is never removed.
	RemoveOnClose bool
	// User runs the command as this user ("name", "uid" or "uid:gid");
	// empty means the container's user.
	User string
	// Shell is run when the spec has no command.
	Shell string
	// Host is the engine's address; empty means $DOCKER_HOST, else the
	// local socket.
	Host string
	// ConnectTimeout bounds connecting to the engine and its first answer
	// (the version check): an address that accepts and never answers
	// fails the start instead of leaving it pending.
	ConnectTimeout time.Duration
}

// DefaultConnectTimeout is connect_timeout's default, as for ssh.
const DefaultConnectTimeout = 10 * time.Second

// DefaultWorkdir is where an image's container mounts the workspace.
const DefaultWorkdir = "/workspace"

// Key describes one option for the config's documentation and checks.
type Key = providers.OptionKey

// OptionKeys are the keys ParseOptions accepts, in documentation order.
var OptionKeys = []Key{
	{Name: "container", Kind: "string", Default: "",
		Help: "Name or id of a running container to open the shell in; set this or image, not both."},
	{Name: "image", Kind: "string", Default: "",
		Help: "Image to create a container from (labelled sandmux=1, the workspace bind-mounted at workdir); set this or container, not both. The image must be on the engine and have sleep; signals other than SIGKILL need sh and grep in it, a workspace restore sh, rm and mv."},
	{Name: "workdir", Kind: "string", Default: "",
		Help: `Absolute path of the workspace inside the container; "" means "/workspace" with image, the container's own working directory with container.`},
	{Name: "remove_on_close", Kind: "bool", Default: true,
		Help: "Remove the container created from image when its pane closes; a container named with container is never removed."},
	{Name: "user", Kind: "string", Default: "",
		Help: `User to run the command as ("name", "uid" or "uid:gid"); "" means the container's user.`},
	{Name: "shell", Kind: "string", Default: "/bin/sh",
		Help: "Program run inside the container for a sandbox without a command."},
	{Name: "host", Kind: "string", Default: "",
		Help: `Docker engine address (unix:///path or tcp://host:port); "" means $DOCKER_HOST, else unix:///var/run/docker.sock.`},
	{Name: "connect_timeout", Kind: `duration, "100ms" to "10m"`, Default: "10s",
		Help: "How long connecting to the engine and its first answer may take together."},
}

// ParseOptions reads and checks m, as decoded from the config: unknown
// keys, values of the wrong type and contradictory settings are errors that
// say what to write instead. Keys left out take their defaults.
func ParseOptions(m map[string]any) (Options, error) {
	o := Options{Shell: "/bin/sh", RemoveOnClose: true, ConnectTimeout: DefaultConnectTimeout}
	var errs []error
	str := func(key string, dst *string) {
		v, ok := m[key]
		if !ok {
			return
		}
		s, ok := v.(string)
		if !ok {
			errs = append(errs, fmt.Errorf("docker option %s: %s is not a string (write %s = \"...\")", key, describe(v), key))
			return
		}
		*dst = s
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !slices.ContainsFunc(OptionKeys, func(o Key) bool { return o.Name == k }) {
			errs = append(errs, fmt.Errorf("docker option %s: unknown key (use one of %s)", k, keyNames()))
		}
	}
	str("container", &o.Container)
	str("image", &o.Image)
	str("workdir", &o.Workdir)
	str("user", &o.User)
	str("shell", &o.Shell)
	str("host", &o.Host)
	if v, ok := m["connect_timeout"]; ok && v != "" { // "" is the config's unset
		d, err := duration(v, 100*time.Millisecond, 10*time.Minute)
		if err != nil {
			errs = append(errs, fmt.Errorf("docker option connect_timeout: %w", err))
		}
		o.ConnectTimeout = d
	}
	if v, ok := m["remove_on_close"]; ok {
		b, ok := v.(bool)
		if !ok {
			errs = append(errs, fmt.Errorf("docker option remove_on_close: %s is not a bool (write true or false)", describe(v)))
		}
		o.RemoveOnClose = b
	}
	if len(errs) > 0 {
		return Options{}, errors.Join(errs...)
	}
	return o, o.check()
}

func (o *Options) check() error {
	var errs []error
	switch {
	case o.Container == "" && o.Image == "":
		errs = append(errs, errors.New("docker options: set container (an existing container's name or id) or image (to create one)"))
	case o.Container != "" && o.Image != "":
		errs = append(errs, errors.New("docker options: container and image are both set; keep one (container attaches, image creates)"))
	}
	if o.Image != "" && o.Workdir == "" {
		o.Workdir = DefaultWorkdir
	}
	if o.Workdir != "" && !path.IsAbs(o.Workdir) {
		errs = append(errs, fmt.Errorf("docker option workdir: %q is not absolute (write a path inside the container such as %q)", o.Workdir, DefaultWorkdir))
	}
	if o.Workdir != "" {
		o.Workdir = path.Clean(o.Workdir)
	}
	if strings.TrimSpace(o.Shell) == "" {
		errs = append(errs, errors.New(`docker option shell: empty (write a program inside the container, e.g. "/bin/sh")`))
	}
	if o.Host != "" {
		if err := checkHost(o.Host); err != nil {
			errs = append(errs, fmt.Errorf("docker option host: %w", err))
		}
	}
	return errors.Join(errs...)
}

// checkHost accepts the engine addresses the provider can dial itself.
// ssh:// needs the docker CLI's connection helper, which is not linked in.
func checkHost(host string) error {
	u, err := client.ParseHostURL(host)
	if err != nil {
		return fmt.Errorf("%q is not an engine address (write unix:///var/run/docker.sock or tcp://HOST:2376)", host)
	}
	switch u.Scheme {
	case "unix", "tcp":
		return nil
	case "ssh":
		return fmt.Errorf("%q: ssh:// is not supported; forward the socket (ssh -NL /tmp/docker.sock:/var/run/docker.sock HOST) and use unix:///tmp/docker.sock", host)
	}
	return fmt.Errorf("%q: scheme %q is not supported (use unix:// or tcp://)", host, u.Scheme)
}

func keyNames() string {
	names := make([]string, len(OptionKeys))
	for i, k := range OptionKeys {
		names[i] = k.Name
	}
	return strings.Join(names, ", ")
}

// duration reads a TOML duration: a string such as "10s" (TOML has no
// duration type), within lo and hi.
func duration(v any, lo, hi time.Duration) (time.Duration, error) {
	var d time.Duration
	switch v := v.(type) {
	case time.Duration:
		d = v
	case string:
		var err error
		if d, err = time.ParseDuration(v); err != nil {
			return 0, fmt.Errorf("%q is not a duration (write a number with a unit, e.g. \"10s\")", v)
		}
	default:
		return 0, fmt.Errorf("%s is not a duration (write a quoted number with a unit, e.g. \"10s\")", describe(v))
	}
	if d < lo || d > hi {
		return 0, fmt.Errorf("%v is out of range (write %v to %v)", d, lo, hi)
	}
	return d, nil
}

// describe names a TOML value for an error message.
func describe(v any) string {
	switch v := v.(type) {
	case string:
		return fmt.Sprintf("%q", v)
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	default:
		return fmt.Sprintf("%v (%T)", v, v)
	}
}

// Descriptor registers the docker provider: its workspace is read and
// written through the engine's archive API.
var Descriptor = providers.Descriptor{
	Name:         "docker",
	New:          func(d providers.Deps) providers.Provider { return ForServer(d.Server) },
	OptionKeys:   OptionKeys,
	CheckOptions: providers.CheckWith(ParseOptions),
	Workspace:    providers.WorkspaceStream,
}
