package snapshot

import (
	"archive/tar"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestContract_W5_FilesAreCreatedWithoutFollowingLinks swaps a directory
// the sink created for a symlink to the outside, and plants a symlink where
// a file is about to be created: the sink fails both and writes nothing
// outside, because it opens every component with O_NOFOLLOW and creates
// files with O_EXCL.
func TestContract_W5_FilesAreCreatedWithoutFollowingLinks(t *testing.T) {
	root := t.TempDir()
	tree := filepath.Join(root, "tree")
	outside := filepath.Join(root, "outside")
	for _, d := range []string{tree, outside} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	s, err := newFSSink(tree)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.dir(member{name: "d"}, &tar.Header{Mode: 0o755}); err != nil {
		t.Fatal(err)
	}
	s.close()
	// Someone replaces d by a link out, and plants a link at "f".
	if err := os.Remove(filepath.Join(tree, "d")); err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{"d", "f"} {
		if err := os.Symlink(outside, filepath.Join(tree, l)); err != nil {
			t.Fatal(err)
		}
	}
	s, err = newFSSink(tree)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	for _, name := range []string{"d/evil", "f"} {
		h := &tar.Header{Typeflag: tar.TypeReg, Mode: 0o644, Size: 1}
		if err := s.file(member{name: name}, h, strings.NewReader("x")); err == nil {
			t.Errorf("%s: created through a symlink", name)
		}
		if err := s.symlink(member{name: name + "-l"}, &tar.Header{Linkname: "x"}); name == "d/evil" && err == nil {
			t.Errorf("%s-l: created through a symlink", name)
		}
	}
	if n := names(t, outside); n != "" {
		t.Errorf("written outside: %q", n)
	}
}
