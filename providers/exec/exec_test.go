package exec

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"go.uber.org/goleak"

	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/providers/local"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// newLocal is an exec provider on local PTYs, as sandmux makes it.
func newLocal() *Provider { return New(local.New("").Open) }

// hostile holds the characters a shell would act on.
const hostile = `it's "my" $(touch /tmp/sandmux-exec-pwned) ; rm -rf x | y & z` + "`id`\\ {name}"

func open(t *testing.T, template any, spec providers.Spec) providers.PTY {
	t.Helper()
	spec.Options = map[string]any{"template": template}
	if spec.Size == (providers.Size{}) {
		spec.Size = providers.Size{Cols: 80, Rows: 24}
	}
	p, err := newLocal().Open(t.Context(), spec)
	if err != nil {
		t.Fatalf("Open(%v): %v", template, err)
	}
	t.Cleanup(func() {
		_ = p.Signal(syscall.SIGKILL)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, _ = p.Wait(ctx) // Checked by the tests that care.
		_ = p.Close()
	})
	return p
}

func readAll(t *testing.T, p providers.PTY) string {
	t.Helper()
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, p); err != nil {
		t.Fatalf("read output: %v", err)
	}
	return buf.String()
}

// Values with quotes, spaces and shell syntax reach the inner shell as
// exactly themselves, in both forms of the template and inside both kinds
// of quotes: no injection.
func TestPlaceholdersCannotInject(t *testing.T) {
	dir := t.TempDir() + "/work space's"
	spec := providers.Spec{Name: hostile, Dir: dir, Term: "screen", Size: providers.Size{Cols: 91, Rows: 17}}
	want := "[" + hostile + "] [" + dir + "] screen 91x17\r\n"
	for _, tmpl := range []any{
		`sh -c 'printf "[%s] [%s] %s %sx%s\n" {name} {workspace} {term} {cols} {rows}'`,
		`sh -c "printf '[%s] [%s] %s %sx%s\n' {name} {workspace} {term} {cols} {rows}"`,
		[]any{"sh", "-c", `printf "[%s] [%s] %s %sx%s\n" {name} {workspace} {term} {cols} {rows}`},
		// Unquoted, a placeholder is one argument of its own.
		`printf '[%s] [%s] %s %sx%s\n' {name} {workspace} {term} {cols} {rows}`,
		[]any{"printf", `[%s] [%s] %s %sx%s\n`, "{name}", "{workspace}", "{term}", "{cols}", "{rows}"},
	} {
		if got := readAll(t, open(t, tmpl, spec)); got != want {
			t.Errorf("template %v:\n got %q\nwant %q", tmpl, got, want)
		}
	}
	if _, err := os.Stat("/tmp/sandmux-exec-pwned"); err == nil {
		t.Error("/tmp/sandmux-exec-pwned exists: a value was run as a command")
	}
}

// {command} is the spec's command as shell text, for a shell to run.
func TestCommandPlaceholder(t *testing.T) {
	spec := providers.Spec{Command: []string{"printf", "%s|", "a b", hostile}}
	want := "a b|" + hostile + "|"
	for _, tmpl := range []any{"sh -c {command}", `sh -c "{command}"`, []any{"sh", "-c", "exec {command}"}} {
		if got := readAll(t, open(t, tmpl, spec)); got != want {
			t.Errorf("template %v: got %q, want %q", tmpl, got, want)
		}
	}
}

func TestExitCodes(t *testing.T) {
	for _, c := range []struct {
		tmpl string
		want providers.ExitStatus
	}{
		{"true", providers.ExitStatus{}},
		{"sh -c 'exit 3'", providers.ExitStatus{Code: 3}},
		{"sh -c 'kill -TERM $$'", providers.ExitStatus{Code: -1, Signal: syscall.SIGTERM}},
	} {
		p := open(t, c.tmpl, providers.Spec{})
		readAll(t, p)
		if st, err := p.Wait(t.Context()); err != nil || st != c.want {
			t.Errorf("%s: Wait = %+v, %v; want %+v", c.tmpl, st, err, c.want)
		}
	}
}

// TestContract_C12_KillVerified: the local CLI's whole group, a background
// child included, is gone after SIGKILL and Wait.
func TestContract_C12_KillVerified(t *testing.T) {
	p := open(t, `sh -c 'sleep 1000 & echo $!; wait'`, providers.Spec{Name: "k"})
	line := make([]byte, 64)
	n, _ := p.Read(line)
	bg, _ := strconv.Atoi(strings.TrimSpace(string(line[:n])))
	if err := p.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if st, err := p.Wait(t.Context()); err != nil || st.Signal != syscall.SIGKILL {
		t.Errorf("Wait = %+v, %v; want death by SIGKILL", st, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		alive, err := p.GroupAlive()
		if err != nil {
			t.Fatal(err)
		}
		if !alive {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("group alive 10s after SIGKILL")
		}
		time.Sleep(5 * time.Millisecond) // a poll interval: the kernel has no event for it
	}
	if _, err := os.Stat("/proc/" + strconv.Itoa(bg)); err == nil {
		t.Errorf("background sleep %d still has a /proc entry", bg)
	}
}

// The CLI runs in the workspace when it exists here, else in sandmux's
// working directory.
func TestWorkingDirectory(t *testing.T) {
	dir := t.TempDir()
	if got := readAll(t, open(t, "pwd", providers.Spec{Dir: dir})); got != dir+"\r\n" {
		t.Errorf("pwd in an existing workspace = %q, want %q", got, dir)
	}
	cwd, _ := os.Getwd()
	if got := readAll(t, open(t, "pwd", providers.Spec{Dir: "/no/such/remote/path"})); got != cwd+"\r\n" {
		t.Errorf("pwd with a remote workspace = %q, want %q", got, cwd)
	}
}

func TestOpenErrors(t *testing.T) {
	for _, c := range []struct {
		opts map[string]any
		want string
	}{
		{map[string]any{"template": "ssh {host}"}, "unknown placeholder {host}"},
		{map[string]any{}, "template: missing"},
		{map[string]any{"template": "/nonexistent/cli {name}"}, "/nonexistent/cli"},
	} {
		_, err := newLocal().Open(t.Context(), providers.Spec{Name: "n", Options: c.opts})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Open(%v) = %v, want an error saying %q", c.opts, err, c.want)
		}
	}
	ctx, cancel := context.WithCancelCause(t.Context())
	cause := errors.New("quit")
	cancel(cause)
	if _, err := newLocal().Open(ctx, providers.Spec{Options: map[string]any{"template": "true"}}); !errors.Is(err, cause) {
		t.Errorf("Open with a done context = %v, want the cause", err)
	}
}

func TestOptionKeysTable(t *testing.T) {
	for _, k := range OptionKeys {
		if _, err := ParseOptions(map[string]any{k.Name: "true"}); err != nil {
			t.Errorf("%s: %v", k.Name, err)
		}
		if k.Kind == "" || (k.Default == nil) == (k.Note == "") || !strings.HasSuffix(k.Help, ".") || strings.Contains(k.Help, ". ") {
			t.Errorf("%s: want a kind, a default or a note, and one sentence of help: %+v", k.Name, k)
		}
	}
	if _, err := ParseOptions(map[string]any{"template": "true", "tempalte": "x"}); err == nil || !strings.Contains(err.Error(), "tempalte: unknown key") {
		t.Errorf("unknown key: %v", err)
	}
	o, err := ParseOptions(map[string]any{"template": []any{"a", "{name}"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := o.Template.Expand(providers.Spec{Name: "x y"}); !reflect.DeepEqual(got, []string{"a", "x y"}) {
		t.Errorf("Expand = %q", got)
	}
}

// Every template in examples.toml, commented or not, parses and expands;
// the one marked tested runs here.
func TestExamples(t *testing.T) {
	data, err := os.ReadFile("examples.toml")
	if err != nil {
		t.Fatal(err)
	}
	var templates []any
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimPrefix(line, "# ")
		if !strings.HasPrefix(line, "template = ") {
			continue
		}
		var v struct{ Template any }
		if _, err := toml.Decode(line, &v); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		templates = append(templates, v.Template)
	}
	if len(templates) != 6 {
		t.Fatalf("found %d templates, want 6", len(templates))
	}
	for _, tmpl := range templates {
		o, err := ParseOptions(map[string]any{"template": tmpl})
		if err != nil {
			t.Errorf("%q: %v", tmpl, err)
			continue
		}
		if _, err := o.Template.Expand(providers.Spec{Name: "sb-1", Dir: "/w", Command: []string{"claude"}}); err != nil {
			t.Errorf("%q: %v", tmpl, err)
		}
	}
	dir := t.TempDir()
	p := open(t, templates[0], providers.Spec{Name: "sb-1", Dir: dir, Term: "screen"})
	if _, err := p.Write([]byte("echo \"[$TERM $(pwd)]\"; exit 7\r")); err != nil {
		t.Fatal(err)
	}
	if out := readAll(t, p); !strings.Contains(out, "[screen "+dir+"]") {
		t.Errorf("output %q lacks [screen %s]", out, dir)
	}
	if st, err := p.Wait(t.Context()); err != nil || st.Code != 7 {
		t.Errorf("Wait = %+v, %v; want code 7", st, err)
	}
}
