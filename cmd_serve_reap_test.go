package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// sleepingOn are the live processes running exactly `sleep ARG` (zombies,
// which run nothing, are not counted).
func sleepingOn(arg string) []int {
	ents, _ := os.ReadDir("/proc") // Best effort: an unreadable /proc shows as none.
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		argv := strings.Split(strings.TrimSuffix(string(cmdline), "\x00"), "\x00")
		if err != nil || len(argv) != 2 || filepath.Base(argv[0]) != "sleep" || argv[1] != arg {
			continue
		}
		if !processAlive(pid) {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}

// waitSleepers waits until exactly n processes run `sleep arg`.
func waitSleepers(t *testing.T, arg string, n int, what string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for len(sleepingOn(arg)) != n {
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d processes run sleep %s, want %d", what, len(sleepingOn(arg)), arg, n)
		}
		time.Sleep(20 * time.Millisecond) // poll: a process appearing has no event
	}
}

// containerRunning reports whether container ref exists and runs.
func containerRunning(ref string) bool {
	out, err := exec.Command("docker", "inspect", "-f", "{{.State.Running}}", ref).Output()
	return err == nil && strings.TrimSpace(string(out)) == "true"
}

// Contract A5 with a real SIGKILL: a server whose panes are a shell that
// left a setsid child behind and a container of a Docker image dies
// without its teardown; both survive it. The next server of the same
// socket kills the child (its pane cgroup), removes the container (its
// label), and says so in one line of its log, while a live server of
// another socket, and its own setsid child, are untouched.
func TestContract_A5_NextServerReapsWhatADeadOneLeft(t *testing.T) {
	image := busyboxImage(t)
	base := t.TempDir()
	env := isolatedEnv(base)
	mark := strconv.Itoa(900000 + rand.IntN(99999))
	other := strconv.Itoa(800000 + rand.IntN(99999))
	box := fmt.Sprintf("reap-%d", os.Getpid())
	cfg := fmt.Sprintf(`
[[sandbox]]
name = "loc"
command = "setsid sleep %[1]s < /dev/null > /dev/null 2>&1 & echo LOC-READY; exec sleep 100000"
workspace = %[2]q

[[sandbox]]
name = %[3]q
provider = "docker"
command = ["sh", "-c", "echo BOX-READY; exec sleep 100000"]
workspace = %[4]q
docker = { image = %[5]q }
`, mark, filepath.Join(base, "loc"), box, filepath.Join(base, "box"), image)
	cfgPath := filepath.Join(base, "sandmux.toml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = exec.Command("docker", "rm", "-f", containersNamed(t, box)).Run() }) // Best effort: the test's own

	live := startServe(t, sandmuxBin, filepath.Join(base, "live.sock"), env,
		"setsid sleep "+other+" < /dev/null > /dev/null 2>&1 & echo LIVE-READY; exec sleep 100000")
	live.waitScreen("1", "LIVE-READY")
	sock := filepath.Join(base, "a.sock")
	dead := startServe(t, sandmuxBin, sock, env, "-c", cfgPath)
	dead.waitScreen("1", "LOC-READY")
	dead.waitScreen("2", "BOX-READY")
	waitSleepers(t, mark, 1, "the pane's setsid child")
	ctr := containersNamed(t, box)
	if ctr == "" || !containerRunning(ctr) {
		t.Fatalf("no running container for sandbox %s: %q", box, ctr)
	}

	if err := dead.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-dead.read // its stderr closed: it is gone
	if len(sleepingOn(mark)) != 1 || !containerRunning(ctr) {
		t.Fatalf("nothing survived the SIGKILL (sleepers %v, container running %v): the test proves nothing", sleepingOn(mark), containerRunning(ctr))
	}

	next := startServe(t, sandmuxBin, sock, env, "cat")
	m := next.waitLog("what it reaped", regexp.MustCompile(`reaped what the server \(pid `+strconv.Itoa(dead.cmd.Process.Pid)+`\) at `+regexp.QuoteMeta(sock)+` left when it died: (.*)`))
	t.Logf("the next server said: %s", m[0])
	if !strings.Contains(m[1], "1 pane cgroup (") || !strings.Contains(m[1], "container sandmux-"+box) {
		t.Errorf("the reap line names %q, want the pane's cgroup and the container", m[1])
	}
	waitSleepers(t, mark, 0, "the dead server's setsid child after the next server started")
	if containerRunning(ctr) || containersNamed(t, box) != "" {
		t.Errorf("the dead server's container %s is still there", ctr)
	}
	if n := len(sleepingOn(other)); n != 1 {
		t.Errorf("the live server's setsid child: %d processes run sleep %s, want it untouched", n, other)
	}
	if ls := live.ctl("ls"); !strings.Contains(ls, "running") {
		t.Errorf("the live server of another socket after the reap:\n%s", ls)
	}
}
