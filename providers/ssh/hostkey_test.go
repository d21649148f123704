package ssh

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sandmux/sandmux/providers"
)

// advice returns the shell commands an error tells the user to run: each
// follows "with: " and ends at a comma or parenthesis.
func advice(t *testing.T, err error) []string {
	t.Helper()
	m := regexp.MustCompile(`with: (.+?)(?:,| \(|$)`).FindAllStringSubmatch(err.Error(), -1)
	var cmds []string
	for _, c := range m {
		cmds = append(cmds, c[1])
	}
	return cmds
}

func runAdvice(t *testing.T, cmds []string) {
	t.Helper()
	for _, c := range cmds {
		if out, err := exec.Command("sh", "-c", c).CombinedOutput(); err != nil {
			t.Fatalf("the advised %q failed: %v\n%s", c, err, out)
		}
	}
}

// An unknown host key is refused with a command that trusts it; running that
// command makes the next Open succeed.
func TestUnknownHostKeyRefusedWithHowToTrust(t *testing.T) {
	s := startServer(t)
	kh := filepath.Join(t.TempDir(), "missing dir", "known_hosts")
	if err := os.MkdirAll(filepath.Dir(kh), 0o700); err != nil {
		t.Fatal(err)
	}
	opts := s.options(t, "")
	opts["known_hosts"] = []any{kh}
	spec := providers.Spec{Name: "k", Command: []string{"true"}, Options: opts}
	_, err := New(nil).Open(t.Context(), spec)
	if !errors.Is(err, ErrUnknownHostKey) {
		t.Fatalf("Open = %v, want ErrUnknownHostKey", err)
	}
	cmds := advice(t, err)
	if len(cmds) != 1 || !strings.HasPrefix(cmds[0], "ssh-keyscan -p ") {
		t.Fatalf("advice %q in %q, want one ssh-keyscan command", cmds, err)
	}
	runAdvice(t, cmds)
	p := open(t, s, spec)
	if st, err := wait(t, p); err != nil || st.Code != 0 {
		t.Errorf("after trusting: Wait = %+v, %v", st, err)
	}
}

// A changed host key is refused, naming the old entry, with commands that
// replace it; running them makes the next Open succeed.
func TestChangedHostKeyRefused(t *testing.T) {
	s := startServer(t)
	other := filepath.Join(t.TempDir(), "other")
	keygen(t, other)
	kh := filepath.Join(t.TempDir(), "known_hosts")
	writeFile(t, kh, "[127.0.0.1]:"+strconv.Itoa(s.port)+" "+readFile(t, other+".pub"))
	opts := s.options(t, "")
	opts["known_hosts"] = []any{kh}
	spec := providers.Spec{Name: "k", Command: []string{"true"}, Options: opts}
	_, err := New(nil).Open(t.Context(), spec)
	if !errors.Is(err, ErrHostKeyChanged) || !strings.Contains(err.Error(), kh+":1") {
		t.Fatalf("Open = %v, want ErrHostKeyChanged naming %s:1", err, kh)
	}
	cmds := advice(t, err)
	if len(cmds) != 2 || !strings.HasPrefix(cmds[0], "ssh-keygen -R ") {
		t.Fatalf("advice %q in %q, want ssh-keygen -R then ssh-keyscan", cmds, err)
	}
	runAdvice(t, cmds)
	p := open(t, s, spec)
	if st, err := wait(t, p); err != nil || st.Code != 0 {
		t.Errorf("after replacing the key: Wait = %+v, %v", st, err)
	}
}

func TestInsecureIgnoreHostKeyWarns(t *testing.T) {
	s := startServer(t)
	opts := s.options(t, "")
	opts["known_hosts"] = []any{filepath.Join(t.TempDir(), "none")}
	opts["insecure_ignore_host_key"] = true
	var warnings []string
	p, err := New(func(m string) { warnings = append(warnings, m) }).Open(t.Context(),
		providers.Spec{Command: []string{"true"}, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if st, err := wait(t, p); err != nil || st.Code != 0 {
		t.Errorf("Wait = %+v, %v", st, err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "not checked") {
		t.Errorf("warnings = %q, want one about the unchecked host key", warnings)
	}
}

func TestAuthFailures(t *testing.T) {
	s := startServer(t)
	stranger := filepath.Join(t.TempDir(), "stranger")
	keygen(t, stranger)
	locked := filepath.Join(t.TempDir(), "locked")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "secret", "-f", locked).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	for _, c := range []struct {
		name  string
		files []any
		want  string
	}{
		{"key not authorized", []any{stranger}, "authorized_keys"},
		{"encrypted key and no agent", []any{locked}, "ssh-add " + locked},
		{"missing key file", []any{filepath.Join(t.TempDir(), "nope")}, "fix identity_files"},
	} {
		opts := s.options(t, "")
		opts["identity_files"] = c.files
		_, err := New(nil).Open(t.Context(), providers.Spec{Command: []string{"true"}, Options: opts})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Open = %v, want an error saying %q", c.name, err, c.want)
		}
	}
}

// Keys in ssh-agent log in, including an encrypted one that sandmux cannot
// read itself; the agent's connection does not outlive Open.
func TestAgentAuth(t *testing.T) {
	s := startServer(t)
	dir := t.TempDir()
	locked := filepath.Join(dir, "locked")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "secret", "-f", locked).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	writeFile(t, filepath.Join(s.dir, "authorized_keys"), readFile(t, locked+".pub"))
	sock := filepath.Join(dir, "agent.sock")
	agent := exec.Command("ssh-agent", "-D", "-a", sock)
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = agent.Process.Kill(); _ = agent.Wait() })
	// ssh-agent offers no readiness signal: wait for its socket.
	waitForFile(t, sock)
	// ssh-add reads the passphrase from SSH_ASKPASS when it has no terminal.
	askpass := filepath.Join(dir, "askpass")
	writeFile(t, askpass, "#!/bin/sh\necho secret\n")
	if err := os.Chmod(askpass, 0o700); err != nil {
		t.Fatal(err)
	}
	add := exec.Command("ssh-add", locked)
	add.Env = append(os.Environ(), "SSH_AUTH_SOCK="+sock, "SSH_ASKPASS="+askpass, "SSH_ASKPASS_REQUIRE=force", "DISPLAY=none")
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("ssh-add: %v\n%s", err, out)
	}
	opts := s.options(t, "")
	opts["identity_files"] = []any{locked} // Encrypted: left to the agent.
	t.Setenv("SSH_AUTH_SOCK", sock)
	fds := openFDs(t)
	p := open(t, s, providers.Spec{Command: []string{"sh", "-c", "exit 5"}, Options: opts})
	if st, err := wait(t, p); err != nil || st.Code != 5 {
		t.Errorf("Wait = %+v, %v; want code 5", st, err)
	}
	_ = p.Close()
	if now := openFDs(t); now != fds {
		t.Errorf("open descriptors: %d before, %d after Open and Close: %s", fds, now, fdList())
	}
}
