package session

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sandmux/sandmux/session/vt"
)

// TestQuietEndsABurst: a pane floods its screen, whose scrollback holds
// the burst's lines unpacked, and then falls quiet; once vt.BurstQuiet
// has passed with no output its consumer ends the burst, so the
// scrollback is packed with no more output to pack it.
func TestQuietEndsABurst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakePTY()
		m := managerWith(f)
		screen := vt.New(80, 24)
		defer screen.Close()
		opts := testOpts
		opts.Screen = screen
		start(t, m, opts)

		var b strings.Builder
		for i := range 6000 {
			fmt.Fprintf(&b, "line %06d %s\r\n", i, strings.Repeat("=", 50))
		}
		f.output <- []byte(b.String())
		passWindow()
		if !screen.Bursting() {
			t.Fatal("a flood of 6000 lines is no burst")
		}
		time.Sleep(vt.BurstQuiet - 20*time.Millisecond)
		synctest.Wait()
		if !screen.Bursting() {
			t.Fatal("the burst ended before its quiet had passed")
		}
		time.Sleep(20 * time.Millisecond)
		synctest.Wait()
		if screen.Bursting() {
			t.Error("the pane fell quiet and the burst went on")
		}
		shutdownAll(t, m)
	})
}
