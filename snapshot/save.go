package snapshot

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
	"path/filepath"
	"runtime"
	"time"

	"github.com/klauspost/compress/zstd"
	"golang.org/x/sys/unix"
)

// SaveOptions configure Save. The zero value saves everything.
type SaveOptions struct {
	// Sandbox and Provider are recorded in the manifest.
	Sandbox, Provider string
	// Exclude holds gitignore-style patterns of paths to leave out (see
	// Matcher), e.g. the sandbox's snapshot_exclude.
	Exclude []string
	// Created is the time recorded in the manifest; zero means now.
	Created time.Time
	// OnProgress, if set, receives progress at most every
	// ProgressInterval, on a goroutine the save owns, never concurrently;
	// the last call (Done set) happens before Save returns. It may be
	// slow without slowing the save.
	OnProgress func(Progress)
}

// Save archives src to the file archive, with its manifest inside it (a
// frame at its end) and a copy beside it (ManifestPath). The archive
// appears under its final name only when complete and on disk (W4): a
// crash or a cancellation before that leaves whatever was there before,
// untouched, and from then on the new snapshot is whole. An existing
// archive of that name is replaced.
//
// Save works on the calling goroutine: run it off the UI goroutine (W1).
// When ctx is cancelled it stops, waits for everything it started (the
// exporter of a TarSource, the compressor), removes its temporary file and
// returns context.Cause(ctx), with any failure of the stopped work joined
// behind it (W2, W3).
func Save(ctx context.Context, src Source, archive string, opts SaveOptions) (*Manifest, error) {
	ex, err := CompileExclude(opts.Exclude)
	if err != nil {
		return nil, fmt.Errorf("save %s: %w; fix the pattern in snapshot_exclude", src, err)
	}
	created := opts.Created
	if created.IsZero() {
		created = time.Now()
	}
	m := &Manifest{
		Version: ManifestVersion, Sandbox: opts.Sandbox, Provider: opts.Provider,
		Created: created.UTC(), Format: "tar+zstd", Exclude: opts.Exclude,
	}
	rep := newReporter(opts.OnProgress)
	defer rep.stop()
	if err := save(ctx, src, archive, ex, m, rep); err != nil {
		return nil, settle(ctx, fmt.Errorf("save %s to %s: %w", src, archive, err))
	}
	return m, nil
}

func save(ctx context.Context, src Source, archive string, ex *Matcher, m *Manifest, rep *reporter) (err error) {
	t, err := createTemp(archive)
	if err != nil {
		return err
	}
	committed := false
	defer func() {
		if !committed {
			t.abort()
		}
	}()
	sum := sha256.New()
	if err := writeMembers(ctx, src, t, sum, ex, m, rep); err != nil {
		return err
	}
	frame, err := manifestFrame(m)
	if err != nil {
		return err
	}
	if _, err := io.MultiWriter(t, sum).Write(frame); err != nil {
		return fmt.Errorf("write the manifest into %s: %w", t.f.Name(), err)
	}
	m.ArchiveSize, m.SHA256 = t.written, hex.EncodeToString(sum.Sum(nil))
	if err := t.sync(); err != nil {
		return err
	}
	// The archive carries its manifest, so it goes first and alone decides
	// what the snapshot is: at every instant the final name holds the old
	// archive or the new one, each complete, and the copy beside it is a
	// cache that readers ignore while it is stale. The fsync between the
	// renames keeps that order on disk: a crash can never keep the new
	// manifest beside an old archive that has no manifest inside.
	if err := t.rename(false); err != nil {
		return err
	}
	committed = true
	dir := filepath.Dir(archive)
	if err := syncDir(dir); err != nil {
		return err
	}
	if err := writeManifest(archive, m); err != nil {
		return fmt.Errorf("the snapshot is saved, but its manifest beside it is not: %w", err)
	}
	if crashPoint != nil {
		crashPoint("saved")
	}
	return syncDir(dir)
}

// writeMembers writes src's entries into t as a zstd-compressed tar,
// through sum, and records in m what they were and what the data took.
func writeMembers(ctx context.Context, src Source, t *tempFile, sum hash.Hash, ex *Matcher, m *Manifest, rep *reporter) error {
	enc, err := zstd.NewWriter(io.MultiWriter(t, sum),
		// SpeedFastest is zstd's level 1 class. Concurrent blocks compress
		// sections of the stream on several goroutines while the walk
		// fills the next section: `tar | zstd -1` overlaps reading and
		// compressing in two processes, and this is what keeps up with it
		// (best of 5 on 300 MB: 1.26 s against 1.76 s without).
		zstd.WithEncoderLevel(zstd.SpeedFastest),
		zstd.WithEncoderConcurrency(min(runtime.GOMAXPROCS(0), 4)),
		zstd.WithConcurrentBlocks(true))
	if err != nil {
		return fmt.Errorf("start zstd: %w", err)
	}
	var self unix.Stat_t
	if err := unix.Fstat(int(t.f.Fd()), &self); err != nil {
		_ = enc.Close() // let its workers go; the stat's error is the one to tell
		return fmt.Errorf("stat %s: %w", t.f.Name(), err)
	}
	w := &archiveWriter{
		self: [2]uint64{self.Dev, self.Ino},
		tw:   tar.NewWriter(enc), ex: ex, man: m, rep: rep, ctx: ctx,
		chk: newChecker(Limits{MaxBytes: math.MaxInt64 / 2, MaxMembers: math.MaxInt}),
		buf: make([]byte, copyBuffer),
	}
	err = src.emit(ctx, w)
	if err == nil {
		err = w.chk.finish()
	}
	if err == nil {
		err = w.tw.Close()
	}
	// Close always: it waits for the encoder's goroutine, which may still
	// be writing to the temp file.
	if cerr := enc.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("finish zstd: %w", cerr)
	}
	if err != nil {
		return err
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	m.Files, m.Dirs, m.Symlinks, m.Bytes = w.chk.files, w.chk.dirs, int64(len(w.chk.links)), w.chk.bytes
	m.DataSize, m.DataSHA256 = t.written, hex.EncodeToString(sum.Sum(nil))
	return nil
}

const copyBuffer = 1 << 20

// archiveWriter turns workspace entries into archive members: exclusion,
// the member rules, the tar header, the content, progress.
type archiveWriter struct {
	// self is the device and inode of the archive being written, which a
	// workspace saved into itself must not contain.
	self [2]uint64
	ctx  context.Context
	tw   *tar.Writer
	ex   *Matcher
	chk  *checker
	man  *Manifest
	rep  *reporter
	buf  []byte
}

func (w *archiveWriter) excluded(rel string, isDir bool) bool { return w.ex.Excluded(rel, isDir) }

// add writes one member. Entries a restore would refuse are left out and
// noted in the manifest, so every snapshot can be restored.
func (w *archiveWriter) add(h *tar.Header, r io.Reader) error {
	mb, err := w.chk.admit(h)
	if err != nil {
		var me *MemberError
		if errors.As(err, &me) && errors.Is(me, ErrUnsafe) {
			w.man.note(h.Name, me.Reason+": not saved")
			return nil
		}
		return err
	}
	out := &tar.Header{
		Typeflag: h.Typeflag, Name: "./" + mb.name, Linkname: h.Linkname,
		Mode: h.Mode & 0o7777, Size: h.Size, ModTime: h.ModTime, Format: tar.FormatPAX,
	}
	switch h.Typeflag {
	case tar.TypeDir:
		out.Name += "/"
		if mb.name == "." {
			out.Name = "./"
		}
		out.Size = 0
	case tar.TypeSymlink:
		out.Size = 0
	}
	w.rep.file(mb.name)
	if err := w.tw.WriteHeader(out); err != nil {
		return fmt.Errorf("write header of %s: %w", mb.name, err)
	}
	if h.Typeflag != tar.TypeReg {
		return nil
	}
	return w.content(mb.name, h.Size, r)
}

// content copies exactly size bytes of r. A file that shrank while it was
// read is padded with zeros and noted; one that grew is cut at its size
// when it was opened.
func (w *archiveWriter) content(name string, size int64, r io.Reader) error {
	left := size
	for left > 0 {
		if err := w.ctx.Err(); err != nil {
			return context.Cause(w.ctx)
		}
		n, err := io.ReadFull(r, w.buf[:min(int64(len(w.buf)), left)])
		if n > 0 {
			if _, werr := w.tw.Write(w.buf[:n]); werr != nil {
				return fmt.Errorf("write %s to the archive: %w", name, werr)
			}
			left -= int64(n)
			w.rep.add(0, int64(n))
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			if left > 0 {
				w.man.note(name, fmt.Sprintf("shrank while saving: stored with %d zero bytes at the end", left))
				clear(w.buf)
				for left > 0 {
					k := min(int64(len(w.buf)), left)
					if _, werr := w.tw.Write(w.buf[:k]); werr != nil {
						return fmt.Errorf("write %s to the archive: %w", name, werr)
					}
					left -= k
				}
			}
			break
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", name, err)
		}
	}
	w.rep.add(1, 0)
	return nil
}
