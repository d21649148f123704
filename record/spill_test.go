package record

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sandmux/sandmux/session/vt"
)

// fds counts this process's open files.
func fds(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// A ring that keeps its sealed segments in its file keeps what a ring in
// memory keeps, byte for byte, and holds only its open segment in memory.
func TestRingSpillSavesTheSame(t *testing.T) {
	dir, stream := t.TempDir(), vimStream(t)
	before := fds(t)
	synctest.Test(t, func(t *testing.T) {
		opts := RingOptions{Every: 2 * time.Second}
		a, mem := tapped(t, 80, 24, opts)
		opts.SpillDir = dir
		b, disk := tapped(t, 80, 24, opts)
		for i := 0; i < 3000; i++ { // 30 s at 20 KB/s
			off := i * 200 % len(stream)
			a.Write(stream[off:min(off+200, len(stream))])
			b.Write(stream[off:min(off+200, len(stream))])
			time.Sleep(10 * time.Millisecond)
		}
		if m, d := mem.Bytes(), disk.Bytes(); m != d {
			t.Fatalf("the ring in memory keeps %d bytes, the one on disk %d", m, d)
		}
		disk.mu.Lock()
		sealed, open := len(disk.segs)-1, disk.segs[len(disk.segs)-1].size
		disk.mu.Unlock()
		if got := disk.Resident(); sealed < 10 || got != open+sealed*segOverhead {
			t.Fatalf("the spilling ring holds %d bytes in memory, its open segment %d and %d sealed ones %d each: every sealed one should be in its file", got, open, sealed, segOverhead)
		}
		if got, all := mem.Resident(), mem.Bytes(); got != all {
			t.Fatalf("the ring without a file holds %d of its %d bytes in memory", got, all)
		}
		for _, d := range []time.Duration{time.Second, 7 * time.Second, time.Hour} {
			var cm, cd bytes.Buffer
			if err := mem.SaveLast(&cm, d, time.Now()); err != nil {
				t.Fatal(err)
			}
			if err := disk.SaveLast(&cd, d, time.Now()); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(cm.Bytes(), cd.Bytes()) {
				t.Fatalf("window %v: the two rings' casts differ (%d and %d bytes)", d, cm.Len(), cd.Len())
			}
			if msg := windowDiff(t, disk, b, d); msg != "" {
				t.Fatalf("window %v: %s", d, msg)
			}
		}
	})
	if after := fds(t); after != before {
		t.Fatalf("%d files open before the rings, %d after they closed", before, after)
	}
}

// fileBytes is what the ring's file takes on disk.
func (r *Ring) fileBytes(t *testing.T) int64 {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	var st syscall.Stat_t
	if err := syscall.Fstat(int(r.spill.f.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	return st.Blocks * 512
}

// A ring whose file went round many times still saves its window, and the
// disk holds what the ring keeps, not all it ever wrote: dropped segments
// are punched out.
func TestRingSpillWrapsAround(t *testing.T) {
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		a, ring := tapped(t, 80, 24, RingOptions{RetainBytes: 256 << 10, Every: 500 * time.Millisecond, SpillDir: dir})
		text := floodText(4 << 20) // varied: it packs to more than the file holds, many times over
		wrote := 0
		for i := 0; i < len(text); i += 4 << 10 {
			a.Write(text[i:min(i+4<<10, len(text))])
			wrote += 4 << 10
			time.Sleep(20 * time.Millisecond)
		}
		ring.mu.Lock()
		spilled, segs, head := ring.spilled, len(ring.segs), ring.spill.head
		for _, s := range ring.segs {
			spilled -= s.disk.n
		}
		ring.mu.Unlock()
		if spilled != 0 {
			t.Fatalf("the ring counts %d bytes in its file that no segment it keeps has", spilled)
		}
		if head >= spillCap(256<<10) || wrote < 4*int(spillCap(256<<10)) {
			t.Fatalf("the file's head is at %d of %d after %d bytes: the test did not wrap it", head, spillCap(256<<10), wrote)
		}
		// Punching frees whole blocks: a segment's two ends may keep one each.
		if got, bound := ring.fileBytes(t), int64(ring.Bytes()+2*4096*(segs+1)); got > bound {
			t.Fatalf("the file takes %d bytes of disk, more than the %d the ring keeps allows", got, bound)
		}
		if msg := windowDiff(t, ring, a, time.Hour); msg != "" {
			t.Fatal(msg)
		}
	})
}

// A segment dropped, and written over, between SaveLast's snapshot and
// its reading the file is left out, with every older one: the window
// starts at the first segment still kept, at the screen it had then.
func TestSaveLastSkipsSegmentsWrittenOver(t *testing.T) {
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		a, ring := tapped(t, 80, 24, RingOptions{RetainBytes: 256 << 10, Every: 500 * time.Millisecond, SpillDir: dir})
		then := vt.New(80, 24)
		defer then.Close()
		text := floodText(2 << 20)
		write := func(s string) {
			for i := 0; i < len(s); i += 4 << 10 {
				a.Write(s[i:min(i+4<<10, len(s))])
				time.Sleep(20 * time.Millisecond)
			}
		}
		write(text[:1<<20])
		then.Write(text[:1<<20])
		segs, file := ring.snapshot()
		if segs[0].disk.n == 0 {
			t.Fatal("the oldest segment is not in the file: the test shows nothing")
		}
		write(text[1<<20:]) // the file goes round: the snapshot's segments are written over
		if !segs[0].from.gone.Load() {
			t.Fatal("the snapshot's oldest segment is still kept: the test shows nothing")
		}
		var cast bytes.Buffer
		if err := saveLast(&cast, segs, file, 0, time.Hour); err != nil {
			t.Fatal(err)
		}
		b, _ := replay(t, cast.Bytes())
		if msg := diff(then, b); msg != "" {
			t.Fatal(msg)
		}
	})
}

// A ring that cannot open its file keeps its segments in memory.
func TestRingSpillFallsBackToMemory(t *testing.T) {
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	synctest.Test(t, func(t *testing.T) {
		a, ring := tapped(t, 80, 24, RingOptions{Every: time.Second, SpillDir: filepath.Join(notDir, "rings")})
		pace(a, vimStream(t), 0, 500)
		if got, all := ring.Resident(), ring.Bytes(); got != all {
			t.Fatalf("the ring holds %d of its %d bytes in memory, with no file to keep the rest", got, all)
		}
		if !strings.Contains(ring.spillErr.Error(), notDir) {
			t.Fatalf("the ring's file error does not name where: %v", ring.spillErr)
		}
		if msg := windowDiff(t, ring, a, time.Hour); msg != "" {
			t.Fatal(msg)
		}
	})
}
