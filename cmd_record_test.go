package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sandmux/sandmux/asciicast"
)

// record runs the built sandmux record with args and returns its exit code.
func record(t *testing.T, cast string, args ...string) int {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), sandmuxBin, append([]string{"record", "-o", cast}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if stderr.Len() > 0 {
		t.Logf("sandmux record stderr: %s", stderr.String())
	}
	if exitErr, ok := err.(*exec.ExitError); ok {
		return exitErr.ExitCode()
	} else if err != nil {
		t.Fatalf("run sandmux record: %v", err)
	}
	return 0
}

// castText reads a recording and returns its output text, concatenated.
func castText(t *testing.T, path string) (asciicast.Header, string) {
	t.Helper()
	h, events := castHeader(t, path)
	var b strings.Builder
	last := -1.0
	for _, e := range events {
		if e.Kind != "o" || e.Time < last {
			t.Errorf("event %+v: not output, or time went backwards", e)
		}
		last = e.Time
		b.WriteString(e.Data)
	}
	return h, b.String()
}

// asciinemaAccepts checks the file with asciinema itself; `asciinema cat`
// insists on a terminal, which script provides.
func asciinemaAccepts(t *testing.T, path string) {
	t.Helper()
	need(t, "asciinema", "script")
	out, err := exec.Command("script", "-qec", "asciinema cat "+path, "/dev/null").CombinedOutput()
	if err != nil {
		t.Errorf("asciinema cat %s: %v\n%s", path, err, out)
	}
}

// A program that writes 5 MB and exits at once: every byte is in the file
// and its exit code is passed on.
func TestRecordFiveMegabytes(t *testing.T) {
	dir := t.TempDir()
	var want bytes.Buffer
	for i := 0; want.Len() < 5<<20; i++ {
		fmt.Fprintf(&want, "line %07d: héllo wörld 日本語 🎉 \x1b[3%dmcolour\x1b[0m\n", i, i%8)
	}
	data := filepath.Join(dir, "data")
	if err := os.WriteFile(data, want.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cast := filepath.Join(dir, "five.cast")
	// -opost: the line discipline would turn \n into \r\n.
	if code := record(t, cast, "--", "sh", "-c", "stty -opost; cat "+data+"; exit 7"); code != 7 {
		t.Errorf("exit code %d, want 7", code)
	}
	h, got := castText(t, cast)
	if got != want.String() {
		t.Errorf("recorded %d bytes, want %d identical bytes", len(got), want.Len())
	}
	if h.Width != 80 || h.Height != 24 || h.Env["TERM"] != "xterm-256color" || h.Timestamp == 0 {
		t.Errorf("header = %+v", h)
	}
	asciinemaAccepts(t, cast)
}

// Random bytes, invalid UTF-8 included, written in random pieces: the file's
// text is the maximal-subpart decoding of the whole stream (Python's
// decoder with errors="replace" is the independent reference).
func TestRecordRandomBytes(t *testing.T) {
	need(t, "python3")
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	var stream []byte
	pieces := []byte("é日🎉\xe2\x82\xac\xf0\x9f\x98\x80\xc3\xed\xa0\x80\xe0\x80\xf4\x90\xff\xc0\x80")
	for len(stream) < 256<<10 {
		if rng.IntN(3) == 0 {
			stream = append(stream, byte(rng.IntN(256)))
		} else {
			i := rng.IntN(len(pieces))
			stream = append(stream, pieces[i:min(len(pieces), i+1+rng.IntN(4))]...)
		}
	}
	data := filepath.Join(dir, "random")
	if err := os.WriteFile(data, stream, 0o644); err != nil {
		t.Fatal(err)
	}
	writer := `
import os, random, sys
data = open(sys.argv[1], "rb").read()
r = random.Random(3); i = 0
while i < len(data):
    n = r.choice([1, 1, 2, 3, 5, 17, 4096]); os.write(1, data[i:i+n]); i += n
`
	cast := filepath.Join(dir, "random.cast")
	if code := record(t, cast, "--", "sh", "-c", `stty -opost; exec python3 -c "$0" "$1"`, writer, data); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	ref, err := exec.Command("python3", "-c", `import sys; sys.stdout.buffer.write(open(sys.argv[1],"rb").read().decode("utf-8","replace").encode())`, data).Output()
	if err != nil {
		t.Fatal(err)
	}
	if _, got := castText(t, cast); got != string(ref) {
		i := 0
		for i < len(got) && i < len(ref) && got[i] == ref[i] {
			i++
		}
		t.Errorf("recorded text differs from the reference decoding at byte %d of %d/%d", i, len(got), len(ref))
	}
	asciinemaAccepts(t, cast)
}

// groupMembers lists the processes whose process group is pgid.
func groupMembers(pgid int) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) {
			out = append(out, e.Name()+" "+strings.Join(f[:3], " "))
		}
	}
	return out
}

// SIGTERM (or SIGINT, SIGHUP) to sandmux tears the command's group down with the escalation,
// finishes a valid file and exits 143 (130, 129); no sleep survives. The second case
// ignores SIGHUP and SIGTERM, so only SIGKILL after both graces ends it.
func TestRecordSIGTERMTearsDownGroup(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		sig          syscall.Signal
	}{
		{"plain", `echo "pgid=$$"; sleep 1000 & sleep 1000`, syscall.SIGTERM},
		{"stubborn", `trap "" HUP TERM; echo "pgid=$$"; sleep 1000 & sleep 1000`, syscall.SIGTERM},
		{"sigint", `echo "pgid=$$"; sleep 1000 & sleep 1000`, syscall.SIGINT},
		{"sighup", `echo "pgid=$$"; sleep 1000 & sleep 1000`, syscall.SIGHUP},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cast := filepath.Join(dir, "term.cast")
			const graces = 500 * time.Millisecond
			cmd := exec.Command(sandmuxBin, "record", "-o", cast, "--stop-grace", graces.String(), "--kill-grace", graces.String(), "--", "sh", "-c", tc.script)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pgid := waitForPgid(t, cast)
			if len(groupMembers(pgid)) == 0 {
				t.Fatal("the command's group is not running")
			}
			t0 := time.Now()
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			elapsed := time.Since(t0)
			if code, want := cmd.ProcessState.ExitCode(), 128+int(tc.sig); code != want {
				t.Errorf("exit code %d (%v), want %d", code, err, want)
			}
			// Generous bound: both graces plus slack for a loaded machine.
			if limit := 2*graces + 10*time.Second; elapsed > limit {
				t.Errorf("took %v to exit, more than the graces allow (%v)", elapsed, limit)
			}
			t.Logf("exited %v after %v", elapsed, tc.sig)
			if left := groupMembers(pgid); len(left) > 0 {
				t.Errorf("processes of the group survived: %v", left)
			}
			if _, text := castText(t, cast); !strings.Contains(text, "pgid=") {
				t.Errorf("recording lost the output: %q", text)
			}
			asciinemaAccepts(t, cast)
		})
	}
}

// waitForPgid waits for the recorded "pgid=N" line. The recorder flushes
// only at the end, so it reads the child's group from /proc instead.
func waitForPgid(t *testing.T, cast string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		// The sh started by record: its command line is unique to the test.
		out, _ := exec.Command("pgrep", "-f", "^sh -c .*pgid=").Output()
		for _, f := range strings.Fields(string(out)) {
			pid, _ := strconv.Atoi(f)
			if members := groupMembers(pid); len(members) >= 2 {
				return pid
			}
		}
		time.Sleep(10 * time.Millisecond) // poll: no event marks a process start
	}
	t.Fatal("the recorded command never started its background child")
	return 0
}

// Contract A6: record -o makes a new file, 0600; an existing file, or a
// link planted at the path, is refused and left as it was, unless
// --force, which replaces the link itself and never writes through it.
func TestContract_A6_RecordCreatesPrivateFile(t *testing.T) {
	dir := t.TempDir()
	record := func(path string, extra ...string) (string, int) {
		args := append(append([]string{"record", "-o", path}, extra...), "--size", "20x3", "--", "true")
		_, errOut, code := runBin(t, "", args...)
		return errOut, code
	}
	fresh := filepath.Join(dir, "new.cast")
	if errOut, code := record(fresh); code != 0 {
		t.Fatalf("record to a new file: exit %d: %s", code, errOut)
	}
	if fi, err := os.Lstat(fresh); err != nil || fi.Mode() != 0o600 {
		t.Errorf("the new recording: %v, %v; want a file of mode 0600", fi.Mode(), err)
	}

	existing := filepath.Join(dir, "old.cast")
	target := filepath.Join(dir, "target")
	link := filepath.Join(dir, "link.cast")
	for path, body := range map[string]string{existing: "keep me", target: "the link's target"} {
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	unchanged := func(path, body string) {
		t.Helper()
		if b, err := os.ReadFile(path); err != nil || string(b) != body {
			t.Errorf("%s now holds %q, %v; want %q untouched", path, b, err, body)
		}
	}
	for _, path := range []string{existing, link} {
		errOut, code := record(path)
		if code == 0 || !strings.Contains(errOut, "already exists") || !strings.Contains(errOut, "--force") {
			t.Errorf("record to existing %s: exit %d: %s; want a refusal pointing at --force", path, code, errOut)
		}
	}
	unchanged(existing, "keep me")
	unchanged(target, "the link's target")

	for _, path := range []string{existing, link} {
		if errOut, code := record(path, "--force"); code != 0 {
			t.Errorf("record --force to %s: exit %d: %s", path, code, errOut)
		}
		if fi, err := os.Lstat(path); err != nil || fi.Mode() != 0o600 {
			t.Errorf("record --force to %s: %v, %v; want a file of mode 0600", path, fi.Mode(), err)
		}
	}
	unchanged(target, "the link's target")
}
