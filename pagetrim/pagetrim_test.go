package pagetrim

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// Read-only private mappings of files, and only those holding none of
// the process's own pages, are advised: never a writable, shared or
// anonymous one, whatever the file.
func TestPlanPicksUnchangedFilePages(t *testing.T) {
	text, err := os.ReadFile("testdata/smaps.txt")
	if err != nil {
		t.Fatal(err)
	}
	got, err := plan(strings.NewReader(string(text)))
	if err != nil {
		t.Fatal(err)
	}
	want := []span{
		{0x400000, 0xa71000, 5632 << 10},            // code
		{0xa71000, 0x1136000, 4884 << 10},           // constants and tables
		{0x3000000, 0x3001000, 4 << 10},             // another file's code
		{0x7f2cb7ffc000, 0x7f2cb8022000, 148 << 10}, // a library's headers
		{0x7f2cb8022000, 0x7f2cb8178000, 824 << 10}, // a library's code
		{0x7f2cc8022000, 0x7f2cc8024000, 8 << 10},   // replaced on disk, still mapped
	}
	if !slices.Equal(got, want) {
		t.Errorf("plan = %x\nwant   %x", got, want)
	}
}

func FuzzPlan(f *testing.F) {
	text, err := os.ReadFile("testdata/smaps.txt")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(text))
	f.Add("00400000-00401000 r-xp 0 fd:01 7 /x\nRss: 4 kB\n")
	f.Fuzz(func(t *testing.T, s string) {
		spans, err := plan(strings.NewReader(s))
		if err != nil {
			return
		}
		for _, sp := range spans {
			if sp.end <= sp.start {
				t.Fatalf("an empty or reversed span %x from %q", sp, s)
			}
		}
	})
}
