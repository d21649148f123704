package snapshot

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostile is one archive that restore and verify must refuse, naming the
// member.
type hostile struct {
	name   string
	data   func(t *testing.T) []byte
	member string // the name the error must carry
	is     error  // ErrUnsafe, ErrLimit or ErrCorrupt
	limits Limits
}

func hostileArchives() []hostile {
	z := func(entries ...entry) func(t *testing.T) []byte {
		return func(t *testing.T) []byte { return zstdBytes(t, tarBytes(t, entries...)) }
	}
	noise := func(n int) string {
		r := rand.New(rand.NewPCG(3, 4))
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return string(b)
	}
	valid := []entry{dir("./"), file("./README", "hi"), file("./big.bin", noise(256<<10)), file("./after", "x")}
	return []hostile{
		{name: "dotdot", data: z(file("../evil", "x")), member: "../evil", is: ErrUnsafe},
		{name: "nested dotdot", data: z(dir("a/"), file("a/../../evil", "x")), member: "a/../../evil", is: ErrUnsafe},
		{name: "absolute", data: z(file("/tmp/sandmux-evil", "x")), member: "/tmp/sandmux-evil", is: ErrUnsafe},
		{name: "symlink escape", data: z(symlink("esc", "../outside")), member: "esc", is: ErrUnsafe},
		{name: "symlink absolute", data: z(symlink("abs", "/etc")), member: "abs", is: ErrUnsafe},
		{name: "deep symlink escape", data: z(dir("a/b/"), symlink("a/b/l", "../../../x")), member: "a/b/l", is: ErrUnsafe},
		{name: "symlink chain escape", data: z(dir("a/"), symlink("a/l", ".."), symlink("b", "a/l/../x")), member: "b", is: ErrUnsafe},
		{name: "member under symlink", data: z(dir("sub/"), symlink("l", "sub"), file("l/evil", "x")), member: "l/evil", is: ErrUnsafe},
		{name: "hardlink outside", data: z(entry{Name: "hl", Type: tar.TypeLink, Link: "/etc/passwd"}), member: "hl", is: ErrUnsafe},
		{name: "hardlink inside", data: z(file("a", "x"), entry{Name: "hl", Type: tar.TypeLink, Link: "a"}), member: "hl", is: ErrUnsafe},
		{name: "char device", data: z(entry{Name: "null", Type: tar.TypeChar, Mode: 0o666, Devmajor: 1}), member: "null", is: ErrUnsafe},
		{name: "block device", data: z(entry{Name: "sda", Type: tar.TypeBlock, Mode: 0o660, Devmajor: 8}), member: "sda", is: ErrUnsafe},
		{name: "fifo", data: z(entry{Name: "pipe", Type: tar.TypeFifo, Mode: 0o644}), member: "pipe", is: ErrUnsafe},
		{name: "duplicate file", data: z(file("a", "1"), file("./a", "2")), member: "./a", is: ErrUnsafe},
		{name: "duplicate file then dir", data: z(file("x", "1"), dir("x/")), member: "x/", is: ErrUnsafe},
		{name: "file as parent", data: z(file("f", "1"), file("f/g", "2")), member: "f/g", is: ErrUnsafe},
		{name: "too many members", data: z(file("1", ""), file("2", ""), file("3", ""), file("4", "")), member: "4", is: ErrLimit,
			limits: Limits{MaxMembers: 3}},
		{name: "declared size too large", data: z(file("ok", "x"), entry{Name: "huge", Type: tar.TypeReg, Size: 2 << 20}), member: "huge", is: ErrLimit,
			limits: Limits{MaxBytes: 1 << 20}},
		{name: "truncated zstd", data: func(t *testing.T) []byte {
			b := zstdBytes(t, tarBytes(t, valid...))
			return b[:len(b)/2]
		}, member: "./big.bin", is: ErrCorrupt},
		{name: "truncated tar", data: func(t *testing.T) []byte {
			b := tarBytes(t, valid...)
			return b[:len(b)/2]
		}, member: "./big.bin", is: ErrCorrupt},
		{name: "corrupted zstd block", data: func(t *testing.T) []byte {
			b := zstdBytes(t, tarBytes(t, file("./text.txt", words(1<<20)), file("./after", "x")))
			for i := len(b) / 2; i < len(b)/2+64; i++ {
				b[i] ^= 0x5a
			}
			return b
		}, member: "./text.txt", is: ErrCorrupt},
		{name: "corruption caught by the frame checksum", data: func(t *testing.T) []byte {
			// Random content is stored raw: a damaged byte decodes "fine"
			// and only the checksum at the end of the frame catches it.
			b := zstdBytes(t, tarBytes(t, valid...))
			b[len(b)/2] ^= 0x5a
			return b
		}, member: "./after", is: ErrCorrupt},
		{name: "zstd bomb", data: func(t *testing.T) []byte { return zstdBomb(t, 4096) }, member: "bomb.txt", is: ErrLimit},
		{name: "PAX header bomb", data: func(t *testing.T) []byte {
			// Each header carries 900 KiB of PAX records and no content:
			// the declared sizes are all zero, so only the cap on the
			// decompressed stream stops this one.
			var b bytes.Buffer
			tw := tar.NewWriter(&b)
			for i := range 8 {
				h := &tar.Header{Name: fmt.Sprintf("pax%d", i), Typeflag: tar.TypeReg, Mode: 0o644, Format: tar.FormatPAX,
					PAXRecords: map[string]string{"comment": strings.Repeat("x", 900<<10)}}
				if err := tw.WriteHeader(h); err != nil {
					t.Fatal(err)
				}
			}
			_ = tw.Close() // Writes to memory.
			return zstdBytes(t, b.Bytes())
		}, member: "pax", is: ErrLimit, limits: Limits{MaxBytes: 1 << 10, MaxMembers: 4}},
		{name: "second archive appended", data: func(t *testing.T) []byte {
			return zstdBytes(t, append(tarBytes(t, file("a", "1")), tarBytes(t, file("../hidden", "2"))...))
		}, member: "a", is: ErrCorrupt},
		{name: "not an archive", data: func(t *testing.T) []byte { return []byte(strings.Repeat("garbage ", 100)) },
			member: "(start of archive)", is: ErrCorrupt},
	}
}

// words is n bytes of text that compresses like source code.
func words(n int) string {
	r := rand.New(rand.NewPCG(5, 6))
	vocab := strings.Fields("func return if err nil package import var const type struct for range go defer select case")
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(vocab[r.IntN(len(vocab))])
		b.WriteByte(" \n"[r.IntN(2)])
	}
	return b.String()[:n]
}

// TestContract_W5_HostileArchivesAreRefused checks every hostile archive
// against restore (over an existing workspace, and into a missing one) and
// verify: refused, the member named, nothing written anywhere, the
// workspace unchanged.
func TestContract_W5_HostileArchivesAreRefused(t *testing.T) {
	ctx := context.Background()
	for _, tc := range hostileArchives() {
		t.Run(tc.name, func(t *testing.T) {
			archive := filepath.Join(t.TempDir(), "hostile.tar.zst")
			if err := os.WriteFile(archive, tc.data(t), 0o600); err != nil {
				t.Fatal(err)
			}
			root := t.TempDir()
			ws := filepath.Join(root, "parent", "ws")
			writeTree(t, ws)
			if err := os.MkdirAll(filepath.Join(root, "parent", "outside"), 0o755); err != nil {
				t.Fatal(err)
			}
			state := func() string {
				return names(t, root) + names(t, filepath.Join(root, "parent")) +
					treeHash(t, ws) + treeHash(t, filepath.Join(root, "parent", "outside"))
			}
			before := state()

			_, err := Restore(ctx, archive, ws, RestoreOptions{Replace: true, Limits: tc.limits})
			checkRefusal(t, "restore over a workspace", err, tc)
			_, err = Restore(ctx, archive, filepath.Join(root, "parent", "new"), RestoreOptions{Limits: tc.limits})
			checkRefusal(t, "restore into a missing workspace", err, tc)
			_, err = Verify(ctx, archive, VerifyOptions{Limits: tc.limits})
			checkRefusal(t, "verify", err, tc)

			if after := state(); after != before {
				t.Errorf("the refused archive changed the tree around the workspace:\n%s", treeListing(t, root))
			}
		})
	}
}

func checkRefusal(t *testing.T, what string, err error, tc hostile) {
	t.Helper()
	var me *MemberError
	switch {
	case err == nil:
		t.Errorf("%s: accepted, want refusal", what)
	case !errors.As(err, &me):
		t.Errorf("%s: %v: not a *MemberError", what, err)
	case !strings.Contains(me.Member, tc.member):
		t.Errorf("%s: error names member %q, want %q (%v)", what, me.Member, tc.member, err)
	case !errors.Is(err, tc.is):
		t.Errorf("%s: %v: want errors.Is %v", what, err, tc.is)
	case !strings.Contains(err.Error(), tc.member):
		t.Errorf("%s: message %q does not name %q", what, err, tc.member)
	}
}

// names lists a directory's entries: anything written beside the
// workspace, or beside its parent, shows up here.
func names(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range entries {
		b.WriteString(e.Name() + "\n")
	}
	return b.String()
}

func TestContract_W5_HostileArchiveCount(t *testing.T) {
	if n := len(hostileArchives()); n < 15 {
		t.Fatalf("%d hostile archives, the acceptance wants at least 15", n)
	}
}

// TestContract_W5_SetuidBitsAreDropped: special bits never survive a
// restore; permission bits do.
func TestContract_W5_SetuidBitsAreDropped(t *testing.T) {
	archive := filepath.Join(t.TempDir(), "a.tar.zst")
	data := zstdBytes(t, tarBytes(t,
		entry{Name: "suid", Type: tar.TypeReg, Body: "x", Mode: 0o4755},
		entry{Name: "sgid", Type: tar.TypeReg, Body: "x", Mode: 0o2750},
		entry{Name: "sticky/", Type: tar.TypeDir, Mode: 0o1777}))
	if err := os.WriteFile(archive, data, 0o600); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "ws")
	if _, err := Restore(context.Background(), archive, dst, RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]fs.FileMode{"suid": 0o755, "sgid": 0o750, "sticky": fs.ModeDir | 0o777} {
		fi, err := os.Lstat(filepath.Join(dst, name))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != want {
			t.Errorf("%s: mode %v, want %v", name, fi.Mode(), want)
		}
	}
}
