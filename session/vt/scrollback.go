package vt

import (
	"strings"
	"time"
	"unicode/utf8"
)

// scrollback holds the lines that scrolled off the top of the main
// screen, oldest first. Lines are stored as their text (a placeholder rune
// standing for the right half of a wide rune) plus runs of equal style,
// with trailing blanks trimmed, so memory follows what the lines hold, not
// the width of the screen. The newest (hot) lines are kept as they are;
// the older ones packed in compressed blocks (cold, sbcold.go).
type scrollback struct {
	max int
	// cold holds the older lines, sbBlockLines a block, oldest first;
	// the first skip lines of cold[0] are gone (dropped as the oldest).
	cold []sbBlock
	skip int
	// hot holds the newest lines, fewer than 2*sbBlockLines of them
	// once there are cold ones, except in a burst.
	hot []sbLine
	// pushed counts the lines pushed since the last write ended; burst
	// is whether a write pushed a burst's worth (burstLines), the last
	// at burstAt, which holds off packing until the burst is over
	// (endWrite, endBurst).
	pushed  int
	burst   bool
	burstAt time.Time
	// burstBuf is the array hot walks along in a burst (roomHot), and
	// arena what its lines' data is carved from.
	burstBuf []sbLine
	arena    *lineArena
	// dropped counts the lines ever dropped as the oldest: line i's
	// absolute index is dropped+i, which a newer line never takes.
	dropped int64
	// cache is the cold block read last, unpacked.
	cache sbCache
	// finds caches the search text of special lines by their absolute
	// index (search.go), built on a search's first visit to each.
	finds map[int64]*findLine
	// styles are the runs' styles (sbstyle.go), shared with the
	// scrollback a reflow builds from this one: lines move between them.
	styles *styleTable
	// build is the scratch a line is built in before it is packed (by
	// push, and by the screen's pushPlain and bulk lines).
	build sbBuild
}

// sbBuild holds a line's parts while it is built.
type sbBuild struct {
	text     []byte
	runs     []sbRun
	clusters []sbCluster
}

func (b *scrollback) len() int { return b.coldLen() + len(b.hot) }

// coldLen is how many lines the cold blocks hold.
func (b *scrollback) coldLen() int { return len(b.cold)*sbBlockLines - b.skip }

func (b *scrollback) clear() {
	*b = scrollback{max: b.max, styles: b.styles, build: b.build}
}

// dropNewest forgets the newest n lines (pulled back onto the screen).
func (b *scrollback) dropNewest(n int) {
	n = min(n, b.len())
	b.finds = nil // the indices are taken again by the next lines
	for n > 0 {
		if len(b.hot) == 0 {
			b.unseal()
		}
		k := min(n, len(b.hot))
		clear(b.hot[len(b.hot)-k:])
		b.hot, n = b.hot[:len(b.hot)-k], n-k
	}
}

// unseal unpacks the newest cold block into hot, which is empty.
func (b *scrollback) unseal() {
	last := len(b.cold) - 1
	lines := b.cold[last].unpack()
	if last == 0 {
		lines, b.skip = lines[b.skip:], 0
	}
	b.hot = append(b.hot[:0], lines...)
	b.cold[last] = sbBlock{}
	b.cold, b.cache = b.cold[:last], sbCache{}
}

// line returns the i-th line, 0 being the oldest: a pointer into the
// scrollback for a hot line (valid until the next line is pushed), into
// an unpacked copy for a cold one (read only).
func (b *scrollback) line(i int) *sbLine {
	c := b.coldLen()
	if i >= c {
		return &b.hot[i-c]
	}
	j := i + b.skip
	return &b.block(j / sbBlockLines)[j%sbBlockLines]
}

// block returns cold block k unpacked, through the cache.
func (b *scrollback) block(k int) []sbLine {
	start := b.dropped - int64(b.skip) + int64(k*sbBlockLines)
	if b.cache.lines == nil || b.cache.start != start {
		b.cache = sbCache{start: start, lines: b.cold[k].unpack()}
	}
	return b.cache.lines
}

// push appends a row of cells; the oldest line goes when full.
func (b *scrollback) push(row []Cell, wrapped bool) {
	if b.max == 0 {
		return
	}
	l := b.slot()
	end := len(row)
	for end > 0 && blank(&row[end-1]) {
		end-- // a wrapped line keeps their count in span
	}
	l.span = 0
	if wrapped {
		l.span = int32(len(row))
	}
	text, runs, clusters := b.build.text[:0], b.build.runs[:0], b.build.clusters[:0]
	var prev *Cell
	special := false
	for x := 0; x < end; x++ {
		c := &row[x]
		if c.Text != "" {
			clusters = append(clusters, sbCluster{int32(x), c.Text})
			special = true
		}
		switch {
		case c.Rune < utf8.RuneSelf && c.Rune > 0 && c.Flags == 0:
			text = append(text, byte(c.Rune))
		case c.Flags&FlagPlaceholder != 0:
			text = utf8.AppendRune(text, placeholder)
			special = true
		case c.Flags&FlagPad != 0:
			text = utf8.AppendRune(text, padRune)
			special = true
		case c.Rune == 0:
			text = append(text, ' ')
		default:
			text = utf8.AppendRune(text, c.Rune)
		}
		if prev != nil && sameStyle(prev, c) {
			runs[len(runs)-1].n++
		} else {
			runs = append(runs, sbRun{n: 1, id: b.table().intern(c.style())})
		}
		prev = c
	}
	l.pack(text, runs, clusters, b.lineArena())
	clear(clusters) // packed copies: let the cells' texts go
	b.build = sbBuild{text, runs, clusters}
	l.wrapped, l.special = wrapped, special
}

// slot makes room for the newest line and returns it, to be filled; the
// oldest line goes when full.
func (b *scrollback) slot() *sbLine {
	if n := b.len(); n >= b.max && n > 0 {
		b.dropOldest()
	}
	if len(b.hot) >= 2*sbBlockLines && !b.burst {
		b.seal()
	}
	b.pushed++
	if len(b.hot) == cap(b.hot) && len(b.hot) >= 2*sbBlockLines {
		b.roomHot()
	}
	b.hot = append(b.hot, sbLine{})
	return &b.hot[len(b.hot)-1]
}

// roomHot makes room after a full hot slice in a burst, which drops
// its oldest lines from hot's front: append would grow its array a
// quarter at a time, copying all of it every few hundred lines. hot
// moves to an array of twice its length, and back to that array's
// start once it has walked to its end.
func (b *scrollback) roomHot() {
	n, c := len(b.hot), cap(b.burstBuf)
	if n > 0 && c-cap(b.hot) >= n && &b.burstBuf[:c][c-1] == &b.hot[:n][n-1] {
		copy(b.burstBuf[:n], b.hot)
		clear(b.burstBuf[n:c])
		b.hot = b.burstBuf[:n]
		return
	}
	b.burstBuf = make([]sbLine, 0, 2*n)
	b.hot = append(b.burstBuf, b.hot...)
}

// dropOldest forgets the oldest line.
func (b *scrollback) dropOldest() {
	b.dropped++
	if len(b.cold) == 0 {
		if b.hot[0].special && b.finds != nil {
			delete(b.finds, b.dropped-1)
		}
		b.hot[0] = sbLine{}
		b.hot = b.hot[1:]
		return
	}
	// A cold line's search text goes with the next search (copyLines).
	if b.skip++; b.skip == sbBlockLines {
		b.cold[0] = sbBlock{}
		b.cold, b.skip = b.cold[1:], 0
	}
}

// seal packs the oldest hot lines into cold blocks, a block at a time,
// until fewer than 2*sbBlockLines are left hot. A hot slice a burst
// grew is let go for one of the usual size.
func (b *scrollback) seal() {
	k := 0
	for ; len(b.hot)-k >= 2*sbBlockLines; k += sbBlockLines {
		b.cold = append(b.cold, packBlock(b.hot[k:k+sbBlockLines]))
	}
	if k == 0 {
		return
	}
	if cap(b.hot) > 4*sbBlockLines {
		b.hot = append(make([]sbLine, 0, 2*sbBlockLines), b.hot[k:]...)
		return
	}
	n := copy(b.hot, b.hot[k:])
	clear(b.hot[n:])
	b.hot = b.hot[:n]
}

// burstLines is what one write pushes in a burst: a flood's slice of
// output (64 KiB or more, SliceFor) scrolls hundreds of lines past.
// Through a burst the scrollback packs nothing and its oldest lines go
// unpacked: 20 MB of cat through a pane packed every line it scrolled
// by, most of them to drop a few slices later, in a tenth of its parse.
// A burst is over once BurstQuiet passed since its last such write: at
// the first write after that, or when the pane's output pauses that
// long (Screen.EndBurst). A flood's reader catches up now and then and
// writes a read's few lines between its slices; that is no end.
const burstLines = sbBlockLines

// BurstQuiet is how long after its last slice of a flood a burst is
// over (burstLines).
const BurstQuiet = 200 * time.Millisecond

// endWrite ends a write: while a burst goes on the scrollback packs
// nothing, and the write that ends one packs what it held off.
func (b *scrollback) endWrite() {
	switch n := b.pushed; {
	case n >= burstLines:
		b.burst, b.burstAt = true, time.Now()
	case b.burst && (n == 0 || time.Since(b.burstAt) < BurstQuiet):
	default:
		b.endBurst()
	}
	b.pushed = 0
}

// endBurst packs the lines a burst held unpacked.
func (b *scrollback) endBurst() {
	b.burst, b.burstBuf = false, nil
	b.seal()
	if b.arena != nil {
		// The lines left hot take their data from the arena's chunks
		// back, so that only they hold it.
		for i := range b.hot {
			b.hot[i].data = strings.Clone(b.hot[i].data)
		}
		b.arena = nil
	}
}

// lineArena is the arena a pushed line's data comes from: while a burst
// goes on, else none.
func (b *scrollback) lineArena() *lineArena {
	if !b.burst {
		return nil
	}
	if b.arena == nil {
		b.arena = new(lineArena)
	}
	return b.arena
}
