package play

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sandmux/sandmux/asciicast"
	"github.com/sandmux/sandmux/asciicast/casttest"
)

// lockedBuffer is what the player wrote, read by the test.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

type playResult struct {
	quit bool
	err  error
}

// startPlayer plays cast on its own goroutine with keys from the test.
func startPlayer(t *testing.T, cast []byte, speed, idle float64) (*player, *lockedBuffer, chan<- playKey, <-chan playResult) {
	t.Helper()
	dec, err := asciicast.NewDecoder(bytes.NewReader(cast))
	if err != nil {
		t.Fatal(err)
	}
	out := &lockedBuffer{}
	keys := make(chan playKey)
	p := newPlayer(dec, out, speed, idle, keys)
	done := make(chan playResult, 1)
	go func() {
		quit, err := p.play(context.Background())
		done <- playResult{quit, err}
	}()
	return p, out, keys, done
}

// The player keeps the cast's pace; a pause holds it (the time paused does
// not count against the next gap), a step plays one event at once, and a
// quit stops it where it was.
func TestPlayerKeys(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		begin := time.Now()
		cast := casttest.Bytes(t, 20, 3,
			casttest.Event{At: time.Second, Kind: "o", Data: "a"}, casttest.Event{At: 3 * time.Second, Kind: "o", Data: "b"},
			casttest.Event{At: 4 * time.Second, Kind: "i", Data: "typed"}, casttest.Event{At: 5 * time.Second, Kind: "o", Data: "c"},
			casttest.Event{At: 5500 * time.Millisecond, Kind: "m", Data: "checkpoint"}, casttest.Event{At: 6 * time.Second, Kind: "r", Data: "30x4"},
			casttest.Event{At: time.Hour, Kind: "o", Data: "d"}, casttest.Event{At: 2 * time.Hour, Kind: "o", Data: "e"})
		p, out, keys, done := startPlayer(t, cast, 1, 0)
		expect := func(want string) {
			t.Helper()
			synctest.Wait()
			if got := out.String(); got != want {
				t.Fatalf("at %v: output %q, want %q", time.Since(begin), got, want)
			}
		}
		expect("")
		time.Sleep(1500 * time.Millisecond)
		expect("a")
		keys <- keyPause // 1.5 s before b
		time.Sleep(time.Minute)
		expect("a")
		keys <- keyStep // a step while paused plays b at once, and stays paused
		expect("ab")
		time.Sleep(time.Minute)
		expect("ab")
		keys <- keyPause // resumed: c is 2 s after b
		time.Sleep(1900 * time.Millisecond)
		expect("ab")
		time.Sleep(200 * time.Millisecond)
		expect("abc")
		keys <- keyStep // a step while playing does nothing
		time.Sleep(time.Minute)
		expect("abc")
		keys <- keyQuit
		if r := <-done; !r.quit || r.err != nil {
			t.Fatalf("play = %+v, want a quit", r)
		}
		expect("abc")
		if p.marker != "checkpoint" || !p.marked || p.cols != 30 || p.rows != 4 || p.last != 5 {
			t.Errorf("player after the quit: marker %q, size %dx%d, last %v", p.marker, p.cols, p.rows, p.last)
		}
	})
}

// Speed divides the pauses and the idle limit caps them; at the end play
// returns no quit.
func TestPlayerSpeedAndIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		begin := time.Now()
		cast := casttest.Bytes(t, 20, 3, casttest.Event{At: 2 * time.Second, Kind: "o", Data: "a"}, casttest.Event{At: time.Hour, Kind: "o", Data: "b"})
		_, out, _, done := startPlayer(t, cast, 2, 3)
		r := <-done
		// 2 s at speed 2, then an hour capped at 3 s, at speed 2.
		if r.quit || r.err != nil || out.String() != "ab" || time.Since(begin) != 2500*time.Millisecond {
			t.Errorf("play = %+v, %q after %v; want ab after 2.5s", r, out.String(), time.Since(begin))
		}
	})
}

// At speed 0 there is no pause, and a key still reaches the player between
// events.
func TestPlayerSpeedZeroQuits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var events []casttest.Event
		for i := range 100 {
			events = append(events, casttest.Event{At: time.Duration(i) * time.Hour, Kind: "o", Data: "x"})
		}
		dec, err := asciicast.NewDecoder(bytes.NewReader(casttest.Bytes(t, 20, 3, events...)))
		if err != nil {
			t.Fatal(err)
		}
		keys := make(chan playKey, 1)
		keys <- keyQuit
		var out bytes.Buffer
		quit, err := newPlayer(dec, &out, 0, 0, keys).play(context.Background())
		if !quit || err != nil || out.Len() >= 100 {
			t.Errorf("play = %v, %v with %d events out; want a quit before the end", quit, err, out.Len())
		}
		// Without keys, it all plays at once.
		dec, _ = asciicast.NewDecoder(bytes.NewReader(casttest.Bytes(t, 20, 3, events...)))
		out.Reset()
		begin := time.Now()
		if quit, err := newPlayer(dec, &out, 0, 0, nil).play(context.Background()); quit || err != nil || out.String() != strings.Repeat("x", 100) || time.Since(begin) != 0 {
			t.Errorf("play = %v, %v, %q after %v", quit, err, out.String(), time.Since(begin))
		}
	})
}
