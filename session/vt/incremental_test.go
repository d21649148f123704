package vt

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A frame taken again by Snapshot, which decodes only the rows whose
// glyphs changed, must equal a fresh frame of the same screen: after
// every chunk of real programs' output, through sweeps of the pen and
// cluster tables (many styles and clusters), resizes and the alternate
// screen. RowChanged must be set on every row that differs from the
// previous frame.
func TestSnapshotIncrementalEqualsFresh(t *testing.T) {
	streams := map[string][]byte{"styles": manyStyles(), "clusters": manyClusters()}
	paths, _ := filepath.Glob("testdata/replay/*.vt")
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		streams[filepath.Base(p)] = b
	}
	for name, data := range streams {
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(len(data))))
			s := New(80, 24, WithScrollback(100))
			defer s.Close()
			var inc, prev, fresh Frame
			for len(data) > 0 {
				n := min(len(data), 1+rng.IntN(512))
				s.Write(string(data[:n]))
				data = data[n:]
				if rng.IntN(50) == 0 {
					s.Resize(60+rng.IntN(60), 10+rng.IntN(30))
				}
				s.Snapshot(&inc)
				s.Snapshot(&fresh)
				fresh.Invalidate()
				s.Snapshot(&fresh)
				compareFrames(t, &inc, &fresh, &prev)
				prev.Cols, prev.Rows = inc.Cols, inc.Rows
				prev.Cells = append(prev.Cells[:0], inc.Cells...)
			}
		})
	}
}

func compareFrames(t *testing.T, inc, fresh, prev *Frame) {
	t.Helper()
	if inc.Cols != fresh.Cols || inc.Rows != fresh.Rows {
		t.Fatalf("incremental frame is %dx%d, fresh %dx%d", inc.Cols, inc.Rows, fresh.Cols, fresh.Rows)
	}
	for y := range inc.Rows {
		if !slices.Equal(inc.Row(y), fresh.Row(y)) {
			t.Fatalf("row %d differs:\nincremental %v\nfresh       %v", y, inc.Row(y), fresh.Row(y))
		}
		if prev.Cols == inc.Cols && prev.Rows == inc.Rows && !inc.RowChanged(y) && !slices.Equal(inc.Row(y), prev.Row(y)) {
			t.Fatalf("row %d changed but RowChanged says not", y)
		}
	}
	if inc.Cursor != fresh.Cursor || inc.Modes != fresh.Modes || !slices.Equal(inc.Links, fresh.Links) {
		t.Fatalf("frame metadata differs: %+v vs %+v", inc.Cursor, fresh.Cursor)
	}
}

// manyStyles writes more distinct styles than the pen table holds, so
// that it sweeps and reuses ids while rows keep old ones.
func manyStyles() []byte {
	var b []byte
	for i := range 20000 {
		b = fmt.Appendf(b, "\x1b[38;2;%d;%d;%dm%c", i%256, (i/256)%256, i%7, 'a'+i%26)
		if i%70 == 0 {
			b = append(b, "\r\n"...)
		}
		if i%3000 == 0 {
			b = append(b, "\x1b[?1049h\x1b[2J"...)
		}
		if i%3000 == 1500 {
			b = append(b, "\x1b[?1049l"...)
		}
	}
	return b
}

// manyClusters writes more distinct grapheme clusters than the cluster
// table holds.
func manyClusters() []byte {
	var b []byte
	for i := range 20000 {
		b = fmt.Appendf(b, "%c\u0301%c", 0x4e00+i, 'x')
		if i%30 == 0 {
			b = append(b, "\r\n"...)
		}
	}
	return b
}
