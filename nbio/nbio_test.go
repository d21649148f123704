package nbio

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/trace"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
	"golang.org/x/sys/unix"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// pipe is a pipe whose ends the runtime polls, non-blocking, as os.Pipe
// makes them.
func pipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close(); _ = w.Close() })
	return r, w
}

// ReadWait reads what there is, says a passed deadline as f.Read does,
// returns io.EOF once the writer closed and os.ErrClosed once the file
// itself is.
func TestReadWait(t *testing.T) {
	r, w := pipe(t)
	buf := make([]byte, 16)
	if err := r.SetReadDeadline(time.Now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadWait(r, buf); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("read past its deadline: %v, want os.ErrDeadlineExceeded", err)
	}
	_ = r.SetReadDeadline(time.Time{})
	got := make(chan string)
	go func() { // waits in the poller until the write
		n, err := ReadWait(r, buf)
		if err != nil {
			t.Errorf("read: %v", err)
		}
		got <- string(buf[:n])
	}()
	if _, err := w.Write([]byte("key")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "key" {
		t.Errorf("read %q, want %q", s, "key")
	}
	_ = w.Close()
	if _, err := ReadWait(r, buf); err != io.EOF {
		t.Errorf("read after the writer closed: %v, want io.EOF", err)
	}
	_ = r.Close()
	if _, err := ReadWait(r, buf); !errors.Is(err, os.ErrClosed) {
		t.Errorf("read of a closed file: %v, want os.ErrClosed", err)
	}
}

// Close ends a ReadWait that waits, as it ends f.Read.
func TestCloseEndsReadWait(t *testing.T) {
	r, _ := pipe(t)
	done := make(chan error)
	go func() {
		_, err := ReadWait(r, make([]byte, 8))
		done <- err
	}()
	_ = r.Close()
	if err := <-done; !errors.Is(err, os.ErrClosed) {
		t.Errorf("read ended by Close: %v, want os.ErrClosed", err)
	}
}

// WriteWait writes the whole of what the pipe has no room for yet,
// waiting for the reader, and stops at its deadline having said how
// much it wrote.
func TestWriteWait(t *testing.T) {
	r, w := pipe(t)
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB: many pipes' worth
	read := make(chan []byte)
	go func() {
		b, err := io.ReadAll(r)
		if err != nil {
			t.Errorf("read: %v", err)
		}
		read <- b
	}()
	n, err := WriteWait(w, big)
	if err != nil || n != len(big) {
		t.Fatalf("WriteWait wrote %d, %v; want %d, nil", n, err, len(big))
	}
	_ = w.Close()
	if b := <-read; !bytes.Equal(b, big) {
		t.Errorf("the reader got %d bytes, not what was written", len(b))
	}

	r2, w2 := pipe(t)
	_ = w2.SetWriteDeadline(time.Now().Add(50 * time.Millisecond))
	n, err = WriteWait(w2, big) // nobody reads: the pipe fills, the deadline passes
	if !errors.Is(err, os.ErrDeadlineExceeded) || n == 0 || n >= len(big) {
		t.Errorf("WriteWait into a full pipe: wrote %d, %v; want part of it and os.ErrDeadlineExceeded", n, err)
	}
	_ = r2.Close()
	_ = w2.SetWriteDeadline(time.Time{})
	if _, err := WriteWait(w2, []byte("x")); !errors.Is(err, unix.EPIPE) {
		t.Errorf("write with no reader: %v, want EPIPE", err)
	}
}

// The point of the package: its reads and writes never enter the
// scheduler's system-call state, where f.Read's do. An execution trace
// records each entry with its stack; go tool trace prints them.
func TestCallsAreNotAnnounced(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatal("go is not on PATH: the test reads the trace with go tool trace")
	}
	r, w := pipe(t)
	f, err := os.Create(filepath.Join(t.TempDir(), "x.trace"))
	if err != nil {
		t.Fatal(err)
	}
	if err := trace.Start(f); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 8)
	for range 20 {
		_, _ = WriteWait(w, []byte("ab"))
		_, _ = ReadWait(r, buf)
		_, _ = w.Write([]byte("cd")) // the announced kind, to show the trace sees them
		_, _ = r.Read(buf)
	}
	trace.Stop()
	_ = f.Close()
	out, err := exec.Command("go", "tool", "trace", "-d=parsed", f.Name()).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool trace: %v\n%.2000s", err, out)
	}
	announced := map[string]int{}
	for _, ev := range strings.Split(string(out), "\nM=") {
		if !strings.Contains(ev, "Running->Syscall") {
			continue
		}
		for _, who := range []string{"nbio.ReadWait", "nbio.WriteWait", "os.(*File).Read", "os.(*File).Write"} {
			if strings.Contains(ev, who) {
				announced[who]++
			}
		}
	}
	if announced["os.(*File).Read"] == 0 || announced["os.(*File).Write"] == 0 {
		t.Fatalf("the trace shows no system call of f.Read or f.Write (%v): it cannot tell", announced)
	}
	if n := announced["nbio.ReadWait"] + announced["nbio.WriteWait"]; n > 0 {
		t.Errorf("%d of nbio's calls entered the scheduler's system-call state (%v)", n, announced)
	}
}
