package session

import "sync"

// A flood grows a collector's queue and window to the queue's capacity,
// and decode lets them go as soon as a window is small again, so an idle
// pane does not keep a flood's memory. But a flood's windows are not all
// large: whenever the consumer keeps up, a window holds one read, and
// the next large one grew its buffers again from nothing. Cat of 20 MB
// through a pane allocated as many bytes in Push as it delivered. The
// buffers decode lets go wait here instead, for whichever collector
// grows next: a flood reuses them, and the runtime empties the pool
// within two collections once floods are over.
var floodBufs sync.Pool // of *[]byte, each empty, with more than keepBuffer of room

// releaseFlood gives b's array to the pool when it is a flood's; b must
// not be used after.
func releaseFlood(b []byte) {
	if cap(b) > keepBuffer {
		b = b[:0]
		floodBufs.Put(&b)
	}
}

// appendFlood is append(b, p...), except that when b must grow past
// keepBuffer it takes a buffer a flood left in the pool, if one is large
// enough, and else doubles, rather than growing by a quarter at a time.
func appendFlood(b, p []byte) []byte { return appendPooled(b, p, keepBuffer) }

// appendPooled is appendFlood past a size of from: Push's queue takes a
// flood's buffer as soon as it outgrows a read, as only a flood, or a
// consumer busy with a window, queues more.
func appendPooled(b, p []byte, from int) []byte {
	need := len(b) + len(p)
	if need <= cap(b) || need <= from {
		return append(b, p...)
	}
	if got, ok := floodBufs.Get().(*[]byte); ok {
		if cap(*got) >= need {
			nb := append(append((*got)[:0], b...), p...)
			releaseFlood(b)
			return nb
		}
		floodBufs.Put(got)
	}
	// None fits: at least double, as append grows a large slice by a
	// quarter, and a queue filling to 256 KiB from a read grew in
	// fourteen steps, allocating five times what it came to hold.
	nb := make([]byte, len(b), max(need, 2*cap(b)))
	copy(nb, b)
	return append(nb, p...)
}
