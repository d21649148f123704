package record

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// A ring keeps its sealed segments, once packed, in a file of its own
// rather than in memory (RingOptions.SpillDir): 48 busy panes' rings held
// their 16 MiB in the server's heap, with the collector's headroom on top,
// for five minutes of output that is read back only when someone saves a
// window of it. The file has no name (O_TMPFILE, else created and
// removed at once), so it goes when the ring closes or the server dies,
// and no other process can open it by path. The page cache holds what was
// written last; the kernel writes it out or drops it as memory is needed.
//
// The file is a circle of spillCap bytes: each sealed segment goes where
// the last one ended, or back at offset 0 when it would pass the end, and
// the oldest segments in its way are dropped first (a ring drops oldest
// first anyway, so that is where they are). A dropped segment's bytes are
// punched out, so the disk holds what the ring keeps, not its high mark.

// spillCap is the size of a ring's file, from its RetainBytes: twice, so a
// segment rarely finds one the ring still keeps in its way.
func spillCap(retainBytes int) int64 { return 2 * int64(retainBytes) }

// span is where a sealed segment's packed bytes are in its ring's file;
// n is 0 for a segment that is not there.
type span struct {
	off int64
	n   int
}

func (p span) overlaps(q span) bool {
	return p.n > 0 && q.n > 0 && p.off < q.off+int64(q.n) && q.off < p.off+int64(p.n)
}

// spillFile is a ring's file and where the next segment goes.
type spillFile struct {
	f    *os.File
	head int64
	cap  int64
}

// openSpill opens an unnamed file in dir, which is made (0700) if it is
// missing.
func openSpill(dir string, capBytes int64) (*spillFile, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("record: keep rings in %s: %w", dir, err)
	}
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	if err == nil {
		return &spillFile{f: os.NewFile(uintptr(fd), dir+"/(ring)"), cap: capBytes}, nil
	}
	// A file system without unnamed files: a named one, removed at once.
	f, err := os.CreateTemp(dir, ".ring-*")
	if err != nil {
		return nil, fmt.Errorf("record: keep rings in %s: %w", dir, err)
	}
	if err := os.Remove(f.Name()); err != nil {
		_ = f.Close() // nothing written yet
		return nil, fmt.Errorf("record: keep rings in %s: %w", dir, err)
	}
	return &spillFile{f: f, cap: capBytes}, nil
}

// place returns where n bytes go next: after the last segment, or at 0 if
// they would pass the end.
func (s *spillFile) place(n int) span {
	if s.head+int64(n) > s.cap {
		s.head = 0
	}
	return span{off: s.head, n: n}
}

// write puts p at sp (from place) and moves the head past it.
func (s *spillFile) write(sp span, p []byte) error {
	if _, err := s.f.WriteAt(p, sp.off); err != nil {
		return fmt.Errorf("record: write a ring's segment: %w", err)
	}
	s.head = sp.off + int64(sp.n)
	return nil
}

// read returns a copy of the bytes at sp; it is safe for concurrent use,
// and after close it fails.
func (s *spillFile) read(sp span) ([]byte, error) {
	b := make([]byte, sp.n)
	if _, err := s.f.ReadAt(b, sp.off); err != nil {
		return nil, fmt.Errorf("record: read a ring's segment back: %w", err)
	}
	return b, nil
}

// punch gives sp's disk blocks back. A file system that cannot punch
// keeps them until they are written over, within the file's cap.
func (s *spillFile) punch(sp span) {
	_ = unix.Fallocate(int(s.f.Fd()), unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, sp.off, int64(sp.n))
}

func (s *spillFile) close() { _ = s.f.Close() } // an unnamed file: closing frees it

// spillSeg writes sealed segment s, the ring's last, to the ring's file
// and lets its packed bytes go, dropping the older segments in its way;
// it returns the bytes they took. A ring whose file cannot be opened or
// written keeps its segments in memory from then on. The ring's lock is
// held.
func (r *Ring) spillSeg(s *segment) (freed int) {
	n := len(s.packed)
	if r.opts.SpillDir == "" || r.spillErr != nil || n == 0 || int64(n) > spillCap(r.opts.RetainBytes) {
		return 0
	}
	if r.spill == nil {
		f, err := openSpill(r.opts.SpillDir, spillCap(r.opts.RetainBytes))
		if err != nil {
			r.spillErr = err
			return 0
		}
		r.spill = f
	}
	sp := r.spill.place(n)
	k := 0
	for i, o := range r.segs {
		if o != s && o.disk.overlaps(sp) {
			k = i + 1
		}
	}
	freed = r.dropOldest(k)
	if err := r.spill.write(sp, s.packed); err != nil {
		r.spillErr = err
		return freed
	}
	s.packed, s.disk = nil, sp
	r.spilled += n
	return freed
}
