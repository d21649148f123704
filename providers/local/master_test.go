package local

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sandmux/sandmux/providers"
)

// watchedPTYs counts the descriptors of /dev/ptmx that the runtime's
// poller watches: the targets listed in its epoll descriptor's fdinfo.
func watchedPTYs(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	watched := 0
	for _, e := range fds {
		link, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name()))
		if err != nil || link != "anon_inode:[eventpoll]" {
			continue
		}
		f, err := os.Open(filepath.Join("/proc/self/fdinfo", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var tfd int
			if _, err := fmt.Sscanf(sc.Text(), "tfd: %d", &tfd); err != nil {
				continue
			}
			if l, err := os.Readlink(filepath.Join("/proc/self/fd", strconv.Itoa(tfd))); err == nil && (l == "/dev/ptmx" || strings.HasPrefix(l, "/dev/pts/ptmx")) {
				watched++
			}
		}
		_ = f.Close()
	}
	return watched
}

// A master whose output is read without waiting is watched by nobody:
// its child's writes wake no thread. A Read that must wait is watched
// until the next ReadNow.
func TestPacedMasterIsWatchedByNobody(t *testing.T) {
	p := open(t, providers.Spec{Command: []string{"sh", "-c", "printf ready; read x; printf 'got %s' \"$x\"; read y"}})
	h := p.(*handle)
	base := watchedPTYs(t) // other tests' PTYs, none watched either once paced or closed
	buf := make([]byte, 64)
	if n, err := h.Read(buf); err != nil || n == 0 {
		t.Fatalf("Read = %d, %v", n, err)
	}
	if w := watchedPTYs(t); w != base+1 {
		t.Errorf("%d masters watched after a Read, want %d", w, base+1)
	}
	if n, err := h.ReadNow(buf); n != 0 || err != nil {
		t.Fatalf("ReadNow with nothing to read = %d, %v", n, err)
	}
	if w := watchedPTYs(t); w != base {
		t.Errorf("%d masters watched after a ReadNow, want %d: a paced pane's child would wake the process", w, base)
	}
	if _, err := h.Write([]byte("go\r")); err != nil {
		t.Fatal(err)
	}
	var got []byte
	for !strings.Contains(string(got), "got go") {
		n, err := h.Read(buf)
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
		got = append(got, buf[:n]...)
	}
}

// A Write waiting for room in a PTY whose child reads nothing returns
// once the master is closed.
func TestCloseInterruptsWrite(t *testing.T) {
	p := open(t, providers.Spec{Command: []string{"sleep", "1000"}})
	done := make(chan error, 1)
	go func() {
		_, err := p.Write(make([]byte, 1<<20)) // far more than a PTY holds
		done <- err
	}()
	// The write fills the PTY and waits; nothing tells when it started
	// waiting, so Close may also come first: either way it must return.
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err == nil {
			t.Error("a megabyte was written to a PTY nobody reads")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Write still blocked 10s after Close")
	}
	if _, err := p.Read(make([]byte, 8)); !errors.Is(err, io.EOF) {
		t.Errorf("Read after Close = %v, want io.EOF", err)
	}
}

// WriteNow never waits: into a PTY whose child reads nothing it writes
// what fits and says so, with no error.
func TestWriteNowNeverWaits(t *testing.T) {
	p := open(t, providers.Spec{Command: []string{"sleep", "1000"}})
	big := make([]byte, 1<<20)
	n, err := p.(*handle).WriteNow(big)
	if err != nil || n == 0 || n == len(big) {
		t.Errorf("WriteNow of a megabyte into a PTY nobody reads = %d, %v; want part of it and no error", n, err)
	}
	if n2, err := p.(*handle).WriteNow(big); err != nil || n2 != 0 {
		t.Errorf("WriteNow into a full PTY = %d, %v; want 0, nil", n2, err)
	}
}
