package pagetrim

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Drop lets go of pages of the test binary and its libraries that it
// touched starting up, and the code goes on running from them.
func TestDropReleasesTheBinarysPages(t *testing.T) {
	before := resident(t, nil)
	dropped, err := Drop()
	if err != nil {
		t.Fatal(err)
	}
	after := resident(t, nil) // read by code mapped back in, in part
	t.Logf("resident read-only file pages: %d KiB before, %d KiB dropped, %d KiB after", before>>10, dropped>>10, after>>10)
	if dropped <= 0 || after >= before {
		t.Errorf("Drop released %d bytes: the read-only file pages were %d bytes resident before, %d after", dropped, before, after)
	}
}

// A real private mapping holding a page of the process's own (written
// before it was made read-only, as a relocation or a debugger's
// breakpoint is) keeps it; a read-only mapping of the same file is
// advised away and still reads as the file.
func TestDropKeepsPrivateCopies(t *testing.T) {
	page := os.Getpagesize()
	path := filepath.Join(t.TempDir(), "lib")
	content := bytes.Repeat([]byte("a"), 2*page)
	if err := os.WriteFile(path, content, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	clean := mapFile(t, f, unix.PROT_READ)
	sink += clean[0] + clean[page] // resident now
	copied := mapFile(t, f, unix.PROT_READ|unix.PROT_WRITE)
	copied[0] = 'Z' // a private copy of the first page
	if err := unix.Mprotect(copied, unix.PROT_READ); err != nil {
		t.Fatal(err)
	}
	if resident(t, clean) == 0 {
		t.Fatal("the clean mapping holds no page before Drop: nothing to see")
	}
	if _, err := Drop(); err != nil {
		t.Fatal(err)
	}
	if got := resident(t, clean); got != 0 {
		t.Errorf("after Drop the clean mapping holds %d bytes, want none", got)
	}
	if copied[0] != 'Z' {
		t.Errorf("the private copy reads %q after Drop: it was advised away", copied[0])
	}
	if !bytes.Equal(clean, content) {
		t.Error("the clean mapping no longer reads as the file")
	}
}

// sink keeps the reads that make pages resident from being left out.
var sink byte

func mapFile(t *testing.T, f *os.File, prot int) []byte {
	t.Helper()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	b, err := unix.Mmap(int(f.Fd()), 0, int(st.Size()), prot, unix.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = unix.Munmap(b) })
	return b
}

// resident is how much of what Drop would advise is resident now: all
// of it, or only the mapping at m's address.
func resident(t *testing.T, m []byte) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	spans, err := plan(f)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, s := range spans {
		if m == nil || s.start == uintptr(unsafe.Pointer(unsafe.SliceData(m))) {
			n += s.rss
		}
	}
	return n
}
