package vt_test

import (
	"context"
	"os"
	"os/exec"
	"runtime/pprof"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sandmux/sandmux/session"
	"github.com/sandmux/sandmux/session/vt"
)

// A raw-mode child floods cursor-position queries and never reads its
// input. The PTY's input buffer fills, the reply goroutine blocks on it,
// the reply queue fills and drops; Write keeps returning, the screen keeps
// rendering, and teardown (kill, close the PTY, Close the Screen) finishes.
func TestFloodingQueriesNeverBlock(t *testing.T) {
	cmd := exec.Command("sh", "-c", `stty raw -echo; while :; do printf '\033[6n\033[c\033]11;?\007x'; done`)
	cmd.Env = append(os.Environ(), "TERM=xterm-256color")
	ptmx := startPTY(t, cmd, 80, 24)
	scr := vt.New(80, 24, vt.WithReplies(ptmx), vt.WithReplyQueue(16))
	col := session.NewCollector(64 << 10)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		defer col.Close()
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			if n > 0 && col.Push(ctx, buf[:n]) != nil {
				return
			}
			if err != nil {
				return
			}
		}
	})
	writes := make(chan int, 1)
	wg.Go(func() {
		n := 0
		for {
			text, closed, err := col.Collect(ctx, time.Millisecond)
			if text != "" {
				scr.Write(text)
				n += len(text)
				select {
				case writes <- n:
				default:
				}
			}
			if closed || err != nil {
				return
			}
		}
	})

	// Keep rendering while the child floods, until many replies were
	// dropped and a lot of output went through Write.
	var f vt.Frame
	var buf []byte
	deadline := time.Now().Add(60 * time.Second)
	total := 0
	for scr.DroppedReplies() < 1000 || total < 1<<20 {
		select {
		case total = <-writes:
		case <-time.After(10 * time.Second):
			t.Fatalf("Write stopped making progress: %d bytes in, %d replies dropped", total, scr.DroppedReplies())
		}
		scr.Snapshot(&f)
		buf = vt.Render(buf[:0], &f)
		if time.Now().After(deadline) {
			t.Fatalf("flood too slow: %d bytes, %d dropped", total, scr.DroppedReplies())
		}
	}
	t.Logf("%d bytes written, %d replies dropped", total, scr.DroppedReplies())

	// Teardown in session order: kill, close the PTY, join, close.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // best effort: it may be gone
	_ = cmd.Wait()                                      // the exit status of a killed child says nothing
	ptmx.Close()
	cancel()
	wg.Wait()
	closed := make(chan struct{})
	go func() { scr.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		_ = pprof.Lookup("goroutine").WriteTo(os.Stderr, 1)
		t.Fatal("Close did not return")
	}
}
