package record

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sandmux/sandmux/session/vt"
)

// TestBudgetFloodingRings floods 200 rings at once: the budget's total
// never passes its maximum, and it is what the rings hold.
func TestBudgetFloodingRings(t *testing.T) {
	const rings, maxTotal = 200, 8 << 20
	b := NewBudget(maxTotal)
	kf := []byte(strings.Repeat("\x1b[1;31mkeyframe cell text ", 100))
	// Lines that pack to about half, so that the rings hold more than the
	// budget whatever packs them: what a ring holds is what it packed.
	rnd := rand.New(rand.NewPCG(1, 2))
	lines := make([]string, 1000)
	for i := range lines {
		var b strings.Builder
		for b.Len() < 600 {
			fmt.Fprintf(&b, "%x", rnd.Uint64())
		}
		lines[i] = b.String() + "\r\n"
	}
	rs := make([]*Ring, rings)
	var wg sync.WaitGroup
	var over sync.Once
	overBy := 0
	start := time.Now()
	for i := range rs {
		rs[i] = NewRing(RingOptions{RetainBytes: 1 << 20, Every: 10 * time.Millisecond}, b)
		r := rs[i]
		wg.Go(func() {
			at := start
			r.Keyframe(at, 80, 24, kf)
			for j := range 300 {
				at = at.Add(time.Millisecond)
				r.Output(at, lines[(i*7+j)%len(lines)])
				if r.WantKeyframe() {
					r.Keyframe(at, 80, 24, kf)
				}
				if j%50 == 0 {
					r.Resize(at, 80+j%3, 24)
				}
				if n := b.Bytes(); n > maxTotal {
					over.Do(func() { overBy = n })
				}
			}
		})
	}
	wg.Wait()
	if overBy != 0 {
		t.Fatalf("budget total reached %d, over its %d", overBy, maxTotal)
	}
	sum := 0
	for _, r := range rs {
		if n := r.Bytes(); n > 1<<20+len(kf)+DefaultSegmentBytes {
			t.Errorf("a ring holds %d bytes, over its own bound", n)
		}
		sum += r.Bytes()
	}
	if sum != b.Bytes() || sum > maxTotal {
		t.Fatalf("rings hold %d bytes, budget counts %d, max %d", sum, b.Bytes(), maxTotal)
	}
	t.Logf("rings hold %d of %d", sum, maxTotal)
	if sum < maxTotal/2 {
		t.Errorf("rings hold only %d of %d: the budget evicts too much", sum, maxTotal)
	}
	for _, r := range rs {
		r.Close()
	}
	if n := b.Bytes(); n != 0 {
		t.Fatalf("closed rings still count %d bytes", n)
	}
}

// TestBudgetThroughScreens: rings attached to real screens stay within
// their budget, and each still saves a cast that replays.
func TestBudgetThroughScreens(t *testing.T) {
	b := NewBudget(1 << 20)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			s := vt.New(80, 24)
			defer s.Close()
			r := NewRing(RingOptions{}, b)
			r.Attach(s)
			defer r.Close()
			for j := range 2000 {
				s.Write(fmt.Sprintf("\x1b[3%dmscreen %d line %d\x1b[m\r\n", j%8, i, j))
			}
			if n := b.Bytes(); n > b.Max() {
				t.Errorf("budget at %d, over %d", n, b.Max())
			}
		})
	}
	wg.Wait()
}

// TestSaveLastAfterEviction: a ring whose open segment the budget took
// for another ring goes on from a keyframe, and its cast still replays.
func TestSaveLastAfterEviction(t *testing.T) {
	b := NewBudget(64 << 10)
	quiet, busy := vt.New(30, 6), vt.New(30, 6)
	defer quiet.Close()
	defer busy.Close()
	rq, rb := NewRing(RingOptions{}, b), NewRing(RingOptions{}, b)
	rq.Attach(quiet)
	defer rq.Close()
	rb.Attach(busy)
	defer rb.Close()
	quiet.Write("\x1b[1;31mquiet pane\r\n")
	// Varied text, more than the budget packed: however fast it came
	// (a slow machine's is chunked, not a flood), it outweighs the budget.
	busy.Write(floodText(512 << 10))
	if n := rq.Bytes(); n != 0 {
		t.Fatalf("the quiet ring kept %d bytes: the budget should have taken its segment", n)
	}
	quiet.Write("\x1b[?1049h\x1b[2;5r\x1b[44mafter the eviction\x1b[3;1Hmore")
	var cast strings.Builder
	if err := rq.SaveLast(&cast, time.Hour, time.Now()); err != nil {
		t.Fatal(err)
	}
	r, _ := replay(t, []byte(cast.String()))
	if d := diff(quiet, r); d != "" {
		t.Fatal(d)
	}
}
