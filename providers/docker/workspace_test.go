package docker

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sandmux/sandmux/providers"
)

// member is one tar member as a test compares it.
type member struct {
	Name, Body, Link string
	Type             byte
}

func readTar(t *testing.T, b []byte) []member {
	t.Helper()
	var out []member
	tr := tar.NewReader(bytes.NewReader(b))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("read exported tar: %v", err)
		}
		body, _ := io.ReadAll(tr)
		out = append(out, member{Name: strings.TrimSuffix(h.Name, "/"), Body: string(body), Link: h.Linkname, Type: h.Typeflag})
	}
	slices.SortFunc(out, func(a, b member) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func writeTar(t *testing.T, ms []member) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, m := range ms {
		h := &tar.Header{Name: m.Name, Typeflag: m.Type, Linkname: m.Link, Mode: 0o644, Size: int64(len(m.Body))}
		if m.Type == tar.TypeDir {
			h.Mode = 0o755
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(tw, m.Body); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// With image, the workspace is Spec.Dir on the engine's host, reached
// through a temporary container: export re-roots the engine's archive at
// "." and turns hard links into files; import replaces the contents.
func TestWorkspaceRoundTripImage(t *testing.T) {
	needDocker(t)
	src := imageSpec(t)
	must(t, os.MkdirAll(filepath.Join(src.Dir, "sub"), 0o755))
	must(t, os.WriteFile(filepath.Join(src.Dir, "a.txt"), []byte("alpha"), 0o644))
	must(t, os.WriteFile(filepath.Join(src.Dir, "sub", "b.txt"), []byte("beta"), 0o600))
	must(t, os.Link(filepath.Join(src.Dir, "a.txt"), filepath.Join(src.Dir, "sub", "hard")))
	must(t, os.Symlink("../a.txt", filepath.Join(src.Dir, "sub", "link")))

	var out bytes.Buffer
	if err := New().ExportWorkspace(t.Context(), src, &out); err != nil {
		t.Fatal(err)
	}
	got := readTar(t, out.Bytes())
	want := []member{
		{Name: ".", Type: tar.TypeDir},
		{Name: "./a.txt", Body: "alpha", Type: tar.TypeReg},
		{Name: "./sub", Type: tar.TypeDir},
		{Name: "./sub/b.txt", Body: "beta", Type: tar.TypeReg},
		{Name: "./sub/hard", Body: "alpha", Type: tar.TypeReg},
		{Name: "./sub/link", Link: "../a.txt", Type: tar.TypeSymlink},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("exported members:\n got %+v\nwant %+v", got, want)
	}

	dst := imageSpec(t)
	must(t, os.WriteFile(filepath.Join(dst.Dir, "stale"), []byte("old"), 0o644))
	must(t, os.Mkdir(filepath.Join(dst.Dir, ".hidden"), 0o755))
	if err := New().ImportWorkspace(t.Context(), dst, bytes.NewReader(out.Bytes())); err != nil {
		t.Fatal(err)
	}
	checkFile(t, filepath.Join(dst.Dir, "a.txt"), "alpha")
	checkFile(t, filepath.Join(dst.Dir, "sub", "hard"), "alpha")
	checkFile(t, filepath.Join(dst.Dir, "sub", "b.txt"), "beta")
	if l, err := os.Readlink(filepath.Join(dst.Dir, "sub", "link")); err != nil || l != "../a.txt" {
		t.Errorf("restored link = %q, %v", l, err)
	}
	ents, _ := os.ReadDir(dst.Dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"a.txt", "sub"}) {
		t.Errorf("workspace after import holds %v, want [a.txt sub]: the old contents replaced, no staging left", names)
	}
	if left := containersOf(t, src.Name+"-workspace"); len(left) > 0 {
		t.Errorf("temporary containers left: %v", left)
	}
}

// With container, the workspace lives in the container (its working
// directory here); a running sandbox sees an import at once.
func TestWorkspaceRoundTripContainer(t *testing.T) {
	needDocker(t)
	name := runningContainer(t)
	spec := containerSpec(t, name, "sh", "-c", "read x; cat /work/dir/f.txt")
	tm := open(t, spec)
	in := writeTar(t, []member{
		{Name: ".", Type: tar.TypeDir},
		{Name: "dir", Type: tar.TypeDir},
		{Name: "dir/f.txt", Body: "from the stream", Type: tar.TypeReg},
	})
	if err := New().ImportWorkspace(t.Context(), spec, bytes.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	tm.send("\r")
	tm.expect("from the stream")

	var out bytes.Buffer
	if err := New().ExportWorkspace(t.Context(), spec, &out); err != nil {
		t.Fatal(err)
	}
	got := readTar(t, out.Bytes())
	want := []member{
		{Name: ".", Type: tar.TypeDir},
		{Name: "./dir", Type: tar.TypeDir},
		{Name: "./dir/f.txt", Body: "from the stream", Type: tar.TypeReg},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("exported members:\n got %+v\nwant %+v", got, want)
	}
}

// A stream with a member outside the workspace is refused, and the
// workspace is left as it was.
func TestWorkspaceImportRefusesEscape(t *testing.T) {
	needDocker(t)
	spec := imageSpec(t)
	must(t, os.WriteFile(filepath.Join(spec.Dir, "keep"), []byte("kept"), 0o644))
	bad := writeTar(t, []member{{Name: "ok", Body: "x", Type: tar.TypeReg}, {Name: "../escape", Body: "x", Type: tar.TypeReg}})
	err := New().ImportWorkspace(t.Context(), spec, bytes.NewReader(bad))
	if err == nil || !strings.Contains(err.Error(), "../escape") {
		t.Fatalf("ImportWorkspace = %v, want a refusal naming ../escape", err)
	}
	checkFile(t, filepath.Join(spec.Dir, "keep"), "kept")
	ents, _ := os.ReadDir(spec.Dir)
	if len(ents) != 1 {
		t.Errorf("workspace holds %d entries after a refused import, want only keep", len(ents))
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func checkFile(t *testing.T, p, want string) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil || string(b) != want {
		t.Errorf("%s = %q, %v; want %q", p, b, err, want)
	}
}

// A workdir that does not exist in the container is
// providers.ErrNoWorkspace, so that a restore can treat it as empty.
func TestWorkspaceExportMissingIsErrNoWorkspace(t *testing.T) {
	needDocker(t)
	spec := containerSpec(t, runningContainer(t))
	spec.Options["workdir"] = "/no/such/workspace"
	err := New().ExportWorkspace(t.Context(), spec, io.Discard)
	if !errors.Is(err, providers.ErrNoWorkspace) {
		t.Errorf("ExportWorkspace of a missing workdir = %v, want providers.ErrNoWorkspace", err)
	}
}
