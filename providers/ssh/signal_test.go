package ssh

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The sweep script, run locally: it finds exactly the marked processes, with
// GNU grep -z and with the loop for greps without -z, and kills their
// groups.
func TestSweepScript(t *testing.T) {
	noZ := t.TempDir()
	writeFile(t, filepath.Join(noZ, "grep"), "#!/bin/sh\nfor a; do case $a in -*z*) exit 2;; esac; done\nexec /bin/grep \"$@\"\n")
	if err := os.Chmod(filepath.Join(noZ, "grep"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{os.Getenv("PATH"), noZ + ":" + os.Getenv("PATH")} {
		marker := newMarker()
		// A marked group of two (sh and its sleep), and an unmarked sleep.
		marked := exec.Command("sh", "-c", "sleep 1000 & wait")
		marked.Env = append(os.Environ(), markerVar+"="+marker)
		marked.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		other := exec.Command("sleep", "1000")
		for _, c := range []*exec.Cmd{marked, other} {
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
		}
		t.Cleanup(func() { _ = other.Process.Kill(); _ = other.Wait() })
		sweep := func(sig string) []string {
			t.Helper()
			cmd := exec.Command("sh", "-c", sweepScript(marker, sig))
			cmd.Env = append(os.Environ(), "PATH="+path)
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("sweep: %v", err)
			}
			f := strings.Fields(string(out))
			if len(f) == 0 || f[0] != "pids" {
				t.Fatalf("sweep printed %q", out)
			}
			return f[1:]
		}
		// The background sleep may not have started yet: poll, with a
		// deadline, since there is no event for that.
		deadline := time.Now().Add(10 * time.Second)
		found := sweep("")
		for len(found) < 2 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond) // a poll interval
			found = sweep("")
		}
		if len(found) != 2 || !contains(found, marked.Process.Pid) || contains(found, other.Process.Pid) {
			t.Errorf("PATH %s: found %q; want the marked sh %d and its sleep, not %d", path, found, marked.Process.Pid, other.Process.Pid)
		}
		sweep("KILL")
		if st, _ := marked.Process.Wait(); st == nil || st.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Errorf("marked sh ended %v, want SIGKILL", st)
		}
		if err := other.Process.Signal(syscall.Signal(0)); err != nil {
			t.Errorf("the unmarked sleep was hit: %v", err)
		}
	}
}

func contains(pids []string, pid int) bool {
	for _, p := range pids {
		if p == strconv.Itoa(pid) {
			return true
		}
	}
	return false
}
