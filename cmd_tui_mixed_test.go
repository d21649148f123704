package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Local, SSH and Docker panes side by side in one grid, each typed into;
// quitting tears all three down and removes the container sandmux made.
func TestTUIMixedGrid(t *testing.T) {
	host := startSSHHost(t)
	image := busyboxImage(t)
	dir := t.TempDir()
	dockerName := fmt.Sprintf("ctr-%d", os.Getpid())
	cfg := fmt.Sprintf(`
[[sandbox]]
name = "loc"
command = "echo LOCAL-READY; exec sh"
workspace = %[1]q

[[sandbox]]
name = "remote"
provider = "ssh"
command = "echo SSH-READY; exec sh"
workspace = "/tmp"
ssh = { host = "root@127.0.0.1:%[2]d", identity_files = [%[3]q], known_hosts = [%[4]q] }

[[sandbox]]
name = %[5]q
provider = "docker"
command = ["sh", "-c", "echo DOCKER-READY; exec sh"]
workspace = %[6]q
docker = { image = %[7]q }
`, filepath.Join(dir, "loc"), host.port, host.userKey, host.knownHostFile, dockerName, filepath.Join(dir, "ctr"), image)
	path := filepath.Join(dir, "sandmux.toml")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	tt := startTerm(t, 121, 41, sandmuxBin+" -c "+path)
	s := tt.waitFor("three ready panes", func(s string) bool {
		return strings.Contains(quadRegion(s, 0), "LOCAL-READY") && strings.Contains(quadRegion(s, 1), "SSH-READY") &&
			strings.Contains(quadRegion(s, 2), "DOCKER-READY")
	})
	for i, want := range []string{"loc · local", "remote · ssh", dockerName + " · docker"} {
		if title := strings.SplitN(quadRegion(s, i), "\n", 2)[0]; !strings.Contains(title, want) {
			t.Errorf("pane %d title %q lacks %q", i, title, want)
		}
	}
	if containersNamed(t, dockerName) == "" {
		t.Error("no container labelled for the docker sandbox")
	}
	moves := []string{"", "Right", "Down"}
	for i := range 3 {
		if moves[i] != "" {
			tt.keys("C-b", moves[i])
		}
		tt.typeText(fmt.Sprintf("echo in-$((6*7))-%d", i))
		tt.keys("Enter")
		tt.waitPane(i, fmt.Sprintf("in-42-%d", i))
	}
	tt.keys("C-b", "q")
	tt.waitText("Quit and tear them all down?")
	tt.keys("y")
	s = tt.waitExit()
	if !strings.Contains(s, "EXIT=0") {
		t.Errorf("sandmux did not exit cleanly:\n%s", s)
	}
	t.Logf("after quit:\n%s", s)
	for _, name := range []string{"loc:", "remote:", dockerName + ":"} {
		if !strings.Contains(s, name) {
			t.Errorf("summary lacks %s:\n%s", name, s)
		}
	}
	if left := containersNamed(t, dockerName); left != "" {
		t.Errorf("containers left after quit: %s", left)
	}
	tt.checkRestored()
}
