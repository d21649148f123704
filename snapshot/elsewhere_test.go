package snapshot

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// An archive saved outside the store is listed by Elsewhere while it
// exists, once however often it is saved, and the list stays bounded.
func TestElsewhereListsArchivesSavedOutside(t *testing.T) {
	st := &Store{Root: filepath.Join(t.TempDir(), "store")}
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "a.tar.zst")
	for range 2 {
		if _, err := Save(context.Background(), DirSource(src), out, SaveOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := st.Remember(out); err != nil {
			t.Fatal(err)
		}
	}
	es, err := st.Elsewhere()
	if err != nil || len(es) != 1 || es[0].Path != out || es[0].Manifest == nil {
		t.Fatalf("Elsewhere = %+v, %v; want the one archive with its manifest", es, err)
	}
	if err := os.Remove(out); err != nil {
		t.Fatal(err)
	}
	if es, _ := st.Elsewhere(); len(es) != 0 {
		t.Fatalf("a removed archive is still listed: %+v", es)
	}
	for i := range maxElsewhere + 10 {
		if err := st.Remember(filepath.Join(src, "x", string(rune('a'+i%26))+string(rune('a'+i/26)))); err != nil {
			t.Fatal(err)
		}
	}
	paths, _ := st.elsewherePaths()
	if len(paths) != maxElsewhere {
		t.Fatalf("the list holds %d paths, want at most %d", len(paths), maxElsewhere)
	}
}
