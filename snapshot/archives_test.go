package snapshot

import (
	"archive/tar"
	"bytes"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

// entry is one member of a test archive. Body is the content; Size, when
// set, is declared instead of len(Body) (the body is then not written).
type entry struct {
	Name     string
	Type     byte
	Body     string
	Link     string
	Mode     int64
	Size     int64
	Devmajor int64
}

func file(name, body string) entry {
	return entry{Name: name, Type: tar.TypeReg, Body: body, Mode: 0o644}
}
func dir(name string) entry { return entry{Name: name, Type: tar.TypeDir, Mode: 0o755} }
func symlink(name, to string) entry {
	return entry{Name: name, Type: tar.TypeSymlink, Link: to, Mode: 0o777}
}

// tarBytes writes entries as a PAX tar. Declared sizes larger than the body
// produce a header whose content is missing (as in a lying archive).
func tarBytes(t testing.TB, entries ...entry) []byte {
	t.Helper()
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	mt := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	for _, e := range entries {
		h := &tar.Header{Name: e.Name, Typeflag: e.Type, Linkname: e.Link, Mode: e.Mode, ModTime: mt,
			Size: int64(len(e.Body)), Devmajor: e.Devmajor, Format: tar.FormatPAX}
		if e.Type != tar.TypeReg {
			h.Size = 0
		}
		if e.Size != 0 {
			h.Size = e.Size
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatalf("header %q: %v", e.Name, err)
		}
		if e.Size != 0 {
			// A lying header: stop here, as a truncated or forged archive
			// would; the reader must refuse before reading the content.
			return b.Bytes()
		}
		if _, err := tw.Write([]byte(e.Body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func zstdBytes(t testing.TB, data []byte) []byte {
	t.Helper()
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest))
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	return enc.EncodeAll(data, nil)
}

// zstdBomb is a small valid archive followed, in the same zstd stream, by
// frames that decompress to n×16 MiB of zeros.
func zstdBomb(t testing.TB, n int) []byte {
	t.Helper()
	out := zstdBytes(t, tarBytes(t, file("bomb.txt", "tick")))
	zeros := zstdBytes(t, make([]byte, 16<<20))
	for i := 0; i < n; i++ {
		out = append(out, zeros...)
	}
	return out
}
