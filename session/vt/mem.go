package vt

import (
	"unsafe"

	"github.com/hinshun/vt10x"
)

// MemBytes is about how much memory the screen holds: vt10x's two grids,
// the scrollback's lines, the side tables and the buffers the Screen
// keeps between writes. It counts what the Screen's own slices and
// strings hold (their capacity), not the allocator's rounding; `ctl ls`
// reports it per pane. It walks the scrollback: call it on demand, not
// per frame.
func (s *Screen) MemBytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	glyph := int(unsafe.Sizeof(vt10x.Glyph{}))
	n := 2 * s.cols * s.rows * glyph // vt10x's main and alternate grids
	n += s.sb.bytes()
	n += cap(s.pending) + cap(s.rowBuf)*int(unsafe.Sizeof(Cell{})) + cap(s.shapes)*int(unsafe.Sizeof(lineShape{})) +
		(cap(s.bulkRow)+cap(s.altMain))*glyph + cap(s.clBuf) + cap(s.kfBuf) + cap(s.rowVers)*8 + cap(s.touched)*8
	n += cap(s.pens.pens)*int(unsafe.Sizeof(penEntry{})) + len(s.pens.ids)*int(unsafe.Sizeof(style{})+8)
	// the SGRs' memo: a key, its copy of the sequence, the pen it made
	for k := range s.penCache {
		n += int(unsafe.Sizeof(penKey{})+unsafe.Sizeof(penMemo{})) + 16 + len(k.sgr)
	}
	for _, t := range s.clusters.texts {
		n += len(t) + 16
	}
	for _, u := range s.f.links.urls {
		n += len(u) + 16
	}
	return int64(n)
}

// bytes is what the scrollback's lines hold.
func (b *scrollback) bytes() int {
	// hot may walk along a burst's array (roomHot), its room behind it too
	n := (max(cap(b.hot), cap(b.burstBuf))+cap(b.cache.lines))*int(unsafe.Sizeof(sbLine{})) + cap(b.cold)*int(unsafe.Sizeof(sbBlock{}))
	if b.arena != nil { // the room left in the arena's chunk
		n += cap(b.arena.buf) - len(b.arena.buf)
	}
	if t := b.styles; t != nil {
		// the list, the map's key and value a style, the pens' cache
		n += cap(t.list)*int(unsafe.Sizeof(style{})) + len(t.ids)*int(unsafe.Sizeof(style{})+4) +
			cap(t.byPen)*int(unsafe.Sizeof(sbCached{}))
	}
	for i := range b.hot {
		n += b.hot[i].heldBytes()
	}
	for _, blk := range b.cold {
		n += cap(blk.packed)
		if blk.pairs != nil {
			n += int(unsafe.Sizeof(blockPairs{}))
		}
	}
	for i := range b.cache.lines { // slices of the block's one string, and clusters
		n += b.cache.lines[i].heldBytes()
	}
	return n
}
