// Command relay is the floor of an idle key's echo through a Go program
// on this machine, for bench/scale.sh to time beside tmux and sandmux.
//
// It runs cat on a PTY and relays the terminal's keys to it and its
// output back, both files read and written through Go's poller, or with
// -rawio waited for in the poller but read and written past the
// runtime's syscall entry, as sandmux's are (package nbio). With
// -handoffs 0 one goroutine reads and writes each
// direction; with -handoffs 1 each direction's reader passes what it
// read to a writer goroutine over a channel, once: a key then crosses
// two hand-offs. An idle key in sandmux crosses none, as -handoffs 0's
// does: the terminal's reader runs the model's Update that writes the key
// to the pane, and the pane's reader the Update that parses the echo and
// writes its frame (an execution trace of idle echoes shows each on one
// goroutine), though sandmux's paths do far more work than the relay's.
//
// With -poll, one goroutine on one thread waits for either file with
// ppoll and reads and writes them blocking, as a C relay does: through
// the runtime's syscall entry (-poll go), which tells the scheduler the
// thread may block and wakes its monitor when every processor sat idle,
// or past it (-poll raw, RawSyscall: only for this measure, as the
// scheduler then takes the waiting goroutine for a running one and
// signals it every 10 ms). The two differ by what the runtime's
// bookkeeping costs an idle key's echo here.
//
// It is a measuring tool, not part of sandmux: the terminal it relays is
// opened anew (/dev/tty), so its standard input never turns
// non-blocking, and it is restored on exit.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/charmbracelet/x/term"
	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

func main() {
	handoffs := flag.Int("handoffs", 0, "goroutine hand-offs in each direction: 0 or 1")
	poll := flag.String("poll", "", "one thread polling both files, through the runtime (go) or past it (raw)")
	rawio := flag.Bool("rawio", false, "read and write past the runtime's syscall entry (package nbio), waiting in Go's poller")
	flag.Parse()
	run := func() error { return relay(*handoffs, *rawio) }
	if *poll != "" {
		run = func() error { return pollRelay(*poll == "raw") }
	}
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "relay:", err)
		os.Exit(1)
	}
}

func relay(handoffs int, rawio bool) error {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open the terminal (run it on one): %w", err)
	}
	defer tty.Close()
	state, err := term.MakeRaw(tty.Fd())
	if err != nil {
		return fmt.Errorf("put the terminal in raw mode: %w", err)
	}
	defer func() { _ = term.Restore(tty.Fd(), state) }() // Best effort on the way out.
	cat := exec.Command("cat")
	ptmx, err := pty.Start(cat)
	if err != nil {
		return fmt.Errorf("start cat on a PTY: %w", err)
	}
	var term, child io.ReadWriter = tty, ptmx
	if rawio {
		if err := nonblock(ptmx); err != nil {
			return fmt.Errorf("make the PTY non-blocking: %w", err)
		}
		term, child = rawFile{tty}, rawFile{ptmx}
	}
	go pipe(child, term, handoffs) // keys: until the terminal closes
	pipe(term, child, handoffs)    // output: until cat is gone
	_ = ptmx.Close()               // Best effort: cat is gone.
	_ = cat.Wait()                 // its status is not the measure
	return nil
}

// pipe copies src to dst, directly or through one hand-off.
func pipe(dst io.Writer, src io.Reader, handoffs int) {
	if handoffs == 0 {
		_, _ = io.Copy(dst, src) // Either side ending ends the copy.
		return
	}
	ch := make(chan []byte)
	go func() {
		defer close(ch)
		for {
			b := make([]byte, 4096)
			n, err := src.Read(b)
			if n > 0 {
				ch <- b[:n]
			}
			if err != nil {
				return
			}
		}
	}()
	for b := range ch {
		if _, err := dst.Write(b); err != nil {
			break
		}
	}
	for range ch { // let the reader end
	}
}
