package vt

import (
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

// A line packs its text and runs into one string and reads them back as
// they were, whatever their sizes (uvarints of one to five bytes), in a
// string of its own or from a burst's arena.
func TestSbLinePacksRuns(t *testing.T) {
	var arena lineArena
	rng := rand.New(rand.NewPCG(1, 2))
	sizes := []uint32{0, 1, 127, 128, 16383, 16384, 1<<21 - 1, 1 << 21, 1<<31 - 1, 1<<32 - 1}
	var l sbLine
	for range 500 {
		text := []byte("héllo wörld"[:rng.IntN(12)])
		runs := make([]sbRun, rng.IntN(6))
		for k := range runs {
			runs[k] = sbRun{n: int32(sizes[rng.IntN(9)]), id: sizes[rng.IntN(len(sizes))]}
		}
		var clusters []sbCluster
		if rng.IntN(4) == 0 {
			clusters = []sbCluster{{2, "e\u0301"}}
		}
		var a *lineArena
		if rng.IntN(2) == 0 {
			a = &arena
		}
		l.pack(text, runs, clusters, a)
		var got []sbRun
		for it := l.runs(); it.next(); {
			got = append(got, it.sbRun)
		}
		if l.text() != string(text) || !slices.Equal(got, runs) || !slices.Equal(l.clusterList(), clusters) {
			t.Fatalf("packed %q %v %v, read back %q %v %v", text, runs, clusters, l.text(), got, l.clusterList())
		}
		// A remap renames the ids and keeps the rest.
		before := l.data
		l.remap(func(id uint32) uint32 { return id / 2 }, nil)
		got = got[:0]
		for it := l.runs(); it.next(); {
			got = append(got, it.sbRun)
		}
		for k := range runs {
			runs[k].id /= 2
		}
		if l.text() != string(text) || !slices.Equal(got, runs) || !slices.Equal(l.clusterList(), clusters) {
			t.Fatalf("remapped %q: %q %v %v, want %v", before, l.text(), got, l.clusterList(), runs)
		}
	}
}

// The header of a scrollback line is what every one of its lines costs
// besides its data: 2000 lines in each of 48 panes.
func TestSbLineHeaderSize(t *testing.T) {
	if n := unsafe.Sizeof(sbLine{}); n > 48 {
		t.Errorf("sbLine is %d bytes, over 48: a field added to it costs every scrollback line", n)
	}
}
