package record

import "time"

// The open segment's output is packed as it comes, a chunk at a time, so
// what a pane holds between keyframes is a chunk of plain output and the
// packed ones before it, not the whole segment plain: 48 panes of a
// TUI's 20 KB/s held some 115 KiB each in their open segments, more than
// a minute of their packed past. Sealing unpacks the chunks and packs the
// segment whole (pack), as a chunk alone finds little of what the program
// drew again: vim's redraws packed in 32 KiB chunks take almost three
// times what they take in 10-second segments. A flood is not chunked: it
// fills its segment in milliseconds, and its bound seals it soon after.
const (
	// chunkBytes: what an open segment holds is its plain tail, up to a
	// chunk, and the packed chunks before it; a smaller chunk packs
	// worse but leaves a smaller tail. Over 5 minutes of bench/streams.sh's
	// recordings at 20 KB/s, the open segment held on average 41, 28, 23
	// and 28 KiB (vim, htop, apt, a log) in chunks of 8 KiB, against 68,
	// 57, 51 and 60 in chunks of 32, whose tail grew to 40
	// (BenchmarkRingRetain's KiB-open); 16 KiB lay between, and 4 KiB
	// held no less for vim. The ring's own work grows by about 1.5 ns a
	// byte (0.95 against 1.25 us for each 200 bytes of htop, 1.4 against
	// 2.0 of the log, into a ring alone): 1.4 ms a second for 48 panes
	// at 20 KB/s.
	chunkBytes = 8 << 10
	// tailRoom is what a chunked segment's tail starts with; it grows
	// as output comes, so a pane holds a chunk's room only when full.
	tailRoom = 4 << 10
	// chunkCodec packs chunks: each is unpacked and packed again at the
	// seal, so this is a second pass, over slow output only (about 1
	// MB/s for 48 busy panes, at some 150 MB/s).
	chunkCodec = packZstd
	// chunkHeader is what the chunks slice takes per chunk.
	chunkHeader = 24
)

// outLen is the segment's output so far: its chunks' and its tail's.
func (s *segment) outLen() int { return s.base + len(s.data) }

// lastEvent is when the segment's last event came, if it has one.
func (s *segment) lastEvent() (int64, bool) {
	if n := len(s.events); n > 0 {
		return s.events[n-1].at, true
	}
	return s.chunkedAt, len(s.chunks) > 0
}

// flooding says whether the segment's output came faster than floodRate,
// from its keyframe to at.
func (s *segment) flooding(at int64) bool {
	return at-s.start < int64(s.outLen())*int64(time.Second)/floodRate
}

// chunk packs the plain tail and its events once the tail holds a chunk,
// unless the output is a flood's. The tail and events start again in
// the same arrays, unless a snapshot may hold them: a tail made anew
// from tailRoom grew to a chunk a quarter at a time, allocating five
// times what it held (16 panes of vim: 40% of all the server
// allocated). The ring's lock is held.
func (s *segment) chunk(at int64) {
	if len(s.data) < chunkBytes || s.flooding(at) {
		return
	}
	raw := getScratch()
	*raw = marshalOut((*raw)[:0], "", s.data, s.events, s.start, s.base)
	s.chunks = append(s.chunks, encode(chunkCodec, *raw))
	putScratch(raw)
	s.base += len(s.data)
	s.chunkedAt = at
	if s.shared {
		s.data = make([]byte, 0, tailRoom)
		s.events = make([]event, 0, cap(s.events))
		return
	}
	s.data, s.events = s.data[:0], s.events[:0]
}

// room is what the segment after this one starts its tail with: as much
// as this one's output, up to twice segmentBytes (a flood fills its
// segment, and its last window takes it past the bound: growing it would
// copy it again), or tailRoom if it took chunks.
func (s *segment) room(segmentBytes int) int {
	if len(s.chunks) > 0 {
		return tailRoom
	}
	return min(s.outLen(), 2*segmentBytes)
}

// newTail is the tail of the segment after this one, packed now, with
// room bytes of room at least: this one's own tail, which packing left
// unused, unless a snapshot holds it. A flood seals a segment every few
// milliseconds, and a busy pane's chunked tail grew to a chunk.
func (s *segment) newTail(tail []byte, room int) []byte {
	if cap(tail) >= room && !s.shared {
		return tail[:0]
	}
	return make([]byte, 0, room)
}

// output returns the segment's whole output, appended to buf, and all its
// events: its chunks' unpacked, then its tail's.
func (s *segment) output(buf []byte) ([]byte, []event, error) {
	var events []event
	base := 0
	scratch := getScratch()
	defer putScratch(scratch)
	for _, c := range s.chunks {
		raw, err := decodeInto(*scratch, c)
		if err != nil {
			return buf, nil, err
		}
		*scratch = raw
		_, data, evs, err := unmarshalOut(raw, s.start, base)
		if err != nil {
			return buf, nil, err
		}
		buf = append(buf, data...)
		events = append(events, evs...)
		base += len(data)
	}
	if base != s.base {
		return buf, nil, errPacked
	}
	return append(buf, s.data...), append(events, s.events...), nil
}

// unchunk makes data and events the segment's whole output and events, on
// SaveLast's copy of an open segment.
func (s *segment) unchunk() error {
	if len(s.chunks) == 0 {
		return nil
	}
	data, events, err := s.output(make([]byte, 0, s.outLen()))
	if err != nil {
		return err
	}
	s.data, s.events, s.chunks, s.base = data, events, nil, 0
	return nil
}
