package record

import "sync"

// Budget bounds the memory of many rings together (retain_total): when
// their total passes the maximum, the oldest segments across all rings
// go, whichever ring holds them. A segment is charged when it is created
// and as it grows; a ring's own drops give their bytes back.
type Budget struct {
	mu    sync.Mutex
	max   int
	total int
	// fifo holds segments in the order they were created, oldest first;
	// a segment a ring dropped itself stays until it reaches the front
	// or a compaction.
	fifo    []*segment
	compact int // len(fifo) after the last compaction
}

// NewBudget returns a budget of maxBytes over all rings that share it.
func NewBudget(maxBytes int) *Budget { return &Budget{max: max(maxBytes, 1)} }

// Bytes returns the total the rings hold, as charged.
func (b *Budget) Bytes() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.total
}

// Max returns the budget's maximum.
func (b *Budget) Max() int { return b.max }

// charge adds delta (negative for freed bytes) and registers seg when it
// is new, then evicts the oldest segments until the total fits. It locks
// rings, so a ring calls it without holding its own lock.
func (b *Budget) charge(delta int, seg *segment) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.total += delta
	if seg != nil {
		b.fifo = append(b.fifo, seg)
	}
	for b.total > b.max && len(b.fifo) > 0 {
		s := b.fifo[0]
		b.fifo[0] = nil
		b.fifo = b.fifo[1:]
		if !s.gone.Load() {
			b.total -= s.ring.evict(s)
		}
	}
	if len(b.fifo) > 2*b.compact+64 {
		live := b.fifo[:0]
		for _, s := range b.fifo {
			if !s.gone.Load() {
				live = append(live, s)
			}
		}
		clear(b.fifo[len(live):])
		b.fifo = append([]*segment(nil), live...) // let the old array go
		b.compact = len(b.fifo)
	}
}
