package session

import "unsafe"

// readBufBytes is the reader's buffer: a local PTY gives at most 4 KiB a
// read (the line discipline's buffer); a remote one may give more, in more
// reads. The buffer lives as long as the pane, so it is not larger.
const readBufBytes = 8 << 10

// MemBytes is about how much memory the session's own buffers hold: the
// reader's buffer, the input queue and the output collector's queue and
// window (what a flood grew them to, until it is over). It counts the
// buffers' capacity, not the allocator's rounding or the goroutines'
// stacks; `ctl ls` adds it to the pane's screen and ring. It never
// blocks for long.
func (s *Session) MemBytes() int64 {
	n := readBufBytes + s.out.MemBytes()
	if s.writerOn.Load() {
		n += int64(inputQueueLen) * int64(unsafe.Sizeof([]byte(nil)))
	}
	return n
}

// MemBytes is what the collector's buffers hold: the queue, and the
// window's buffers as the consumer left them after its last window.
func (c *Collector) MemBytes() int64 {
	c.mu.Lock()
	n := int64(cap(c.queue))
	c.mu.Unlock()
	return n + c.winBytes.Load()
}
