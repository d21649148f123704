package snapshot

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// genWorkspace writes about size bytes under root: many small files (source
// trees, node_modules) and a few large ones (datasets, build outputs), with
// content that is partly text (compresses) and partly random (does not).
func genWorkspace(tb testing.TB, root string, size int64) (files int) {
	tb.Helper()
	r := rand.New(rand.NewPCG(7, 11))
	words := strings.Fields("func return package import the of and to in is for with on that by this snapshot " +
		"workspace sandbox error context value string int64 byte buffer file directory module test bench")
	text := make([]byte, 0, 16<<20)
	for len(text) < 16<<20 {
		text = append(text, words[r.IntN(len(words))]...)
		text = append(text, " \n\t"[r.IntN(3)])
	}
	noise := make([]byte, 16<<20)
	for i := range noise {
		noise[i] = byte(r.Uint32())
	}
	chunk := func(n int) []byte {
		src := text
		if r.IntN(10) < 3 {
			src = noise
		}
		off := r.IntN(len(src) - n)
		return src[off : off+n]
	}
	write := func(p string, n int) {
		f, err := os.Create(p)
		if err != nil {
			tb.Fatal(err)
		}
		for n > 0 {
			k := min(n, 1<<20)
			if _, err := f.Write(chunk(k)); err != nil {
				tb.Fatal(err)
			}
			n -= k
		}
		if err := f.Close(); err != nil {
			tb.Fatal(err)
		}
		files++
	}
	large := size * 6 / 10
	for i := 0; i < 4; i++ {
		dir := filepath.Join(root, "data")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			tb.Fatal(err)
		}
		write(filepath.Join(dir, fmt.Sprintf("large-%d.bin", i)), int(large/4))
	}
	for left, i := size-large, 0; left > 0; i++ {
		dir := filepath.Join(root, "src", fmt.Sprintf("pkg%02d", i/500), fmt.Sprintf("mod%03d", i/50))
		if i%50 == 0 {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				tb.Fatal(err)
			}
		}
		n := 512 + r.IntN(15<<10)
		write(filepath.Join(dir, fmt.Sprintf("file%05d.txt", i)), n)
		left -= int64(n)
	}
	return files
}

// BenchmarkSnapshot saves and restores a generated workspace (about 300 MB;
// 30 MB with -short) and, in the same run, times `tar -c | zstd -1` and
// `zstd -dc | tar -x` on it. Each figure is the best of a few runs, so that
// other work on a shared machine disturbs the comparison less.
func BenchmarkSnapshot(b *testing.B) {
	size := int64(300 << 20)
	if testing.Short() {
		size = 30 << 20
	}
	tmp := b.TempDir()
	ws := filepath.Join(tmp, "ws")
	files := genWorkspace(b, ws, size)
	b.Logf("workspace: %d files, %d MB", files, size>>20)
	_, zstdErr := exec.LookPath("zstd")
	if zstdErr != nil {
		b.Logf("!!! zstd is not installed: the tar|zstd comparison is SKIPPED (apt-get install zstd) !!!")
	}
	ctx := context.Background()
	run := 0
	best := map[string]time.Duration{}
	var oursSize, theirsSize int64
	measure := func(name string, f func() error) {
		start := time.Now()
		if err := f(); err != nil {
			b.Fatalf("%s: %v", name, err)
		}
		if d := time.Since(start); best[name] == 0 || d < best[name] {
			best[name] = d
		}
	}
	b.ResetTimer()
	for b.Loop() {
		for rep := 0; rep < 3; rep++ {
			run++
			archive := filepath.Join(tmp, fmt.Sprintf("ours-%d.tar.zst", run))
			measure("save", func() error {
				m, err := Save(ctx, DirSource(ws), archive, SaveOptions{})
				if err == nil {
					oursSize = m.ArchiveSize
				}
				return err
			})
			dst := filepath.Join(tmp, fmt.Sprintf("restored-%d", run))
			measure("restore", func() error { _, err := Restore(ctx, archive, dst, RestoreOptions{}); return err })
			b.StopTimer()
			mustRemove(b, archive, ManifestPath(archive), dst)
			b.StartTimer()
			if zstdErr != nil {
				continue
			}
			theirs := filepath.Join(tmp, fmt.Sprintf("theirs-%d.tar.zst", run))
			measure("tar|zstd", func() error { return sh("tar -c -C \"$1\" . | zstd -1 -q > \"$2\"", ws, theirs) })
			if fi, err := os.Stat(theirs); err == nil {
				theirsSize = fi.Size()
			}
			dst2 := filepath.Join(tmp, fmt.Sprintf("untarred-%d", run))
			measure("zstd|tar", func() error {
				return sh("mkdir \"$2\" && zstd -dc -q \"$1\" | tar -x -C \"$2\"", theirs, dst2)
			})
			b.StopTimer()
			mustRemove(b, theirs, dst2)
			b.StartTimer()
		}
	}
	mbps := func(name string) float64 { return float64(size) / 1e6 / best[name].Seconds() }
	b.ReportMetric(mbps("save"), "save-MB/s")
	b.ReportMetric(mbps("restore"), "restore-MB/s")
	b.ReportMetric(float64(oursSize)/float64(size), "save-ratio")
	if zstdErr == nil {
		b.ReportMetric(mbps("tar|zstd"), "tar|zstd-MB/s")
		b.ReportMetric(mbps("zstd|tar"), "zstd|tar-MB/s")
		b.ReportMetric(mbps("save")/mbps("tar|zstd"), "save-vs-tar|zstd")
		b.ReportMetric(mbps("restore")/mbps("zstd|tar"), "restore-vs-zstd|tar")
		b.ReportMetric(float64(theirsSize)/float64(size), "tar|zstd-ratio")
	}
}

func sh(script string, args ...string) error {
	out, err := exec.Command("sh", append([]string{"-ec", script, "sh"}, args...)...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %w: %s", script, err, out)
	}
	return nil
}

func mustRemove(tb testing.TB, paths ...string) {
	tb.Helper()
	for _, p := range paths {
		if err := os.RemoveAll(p); err != nil {
			tb.Fatal(err)
		}
	}
}
