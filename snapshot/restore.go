package snapshot

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// Report describes an archive that was read completely: by Verify, or by a
// Restore that succeeded.
type Report struct {
	Archive string
	// Format is "zstd", "gzip" or "tar".
	Format                       string
	Files, Dirs, Symlinks, Bytes int64
	// Size and SHA256 describe the archive file.
	Size   int64
	SHA256 string
	// Manifest is the manifest found beside the archive, nil if none.
	Manifest *Manifest
	// Warnings are things the caller should tell the user about a restore
	// that succeeded.
	Warnings []string
}

// VerifyOptions configure Verify.
type VerifyOptions struct {
	Limits     Limits
	OnProgress func(Progress)
}

// RestoreOptions configure Restore.
type RestoreOptions struct {
	// Replace allows restoring over a non-empty workspace; its old content
	// is swapped out in one rename and then removed.
	Replace    bool
	Limits     Limits
	OnProgress func(Progress)
}

// Verify reads the whole archive, applies every rule Restore applies (W5)
// and compares it with its manifest, if it has one; it writes nothing. The
// first problem is returned as an error naming the member.
func Verify(ctx context.Context, archive string, opts VerifyOptions) (*Report, error) {
	rep := newReporter(opts.OnProgress)
	defer rep.stop()
	r, err := read(ctx, archive, opts.Limits, discardSink{buf: make([]byte, copyBuffer)}, rep)
	if err != nil {
		return nil, settle(ctx, fmt.Errorf("verify %s: %w", archive, err))
	}
	return r, nil
}

// read scans archive into s and checks it against its manifest.
func read(ctx context.Context, archive string, lim Limits, s sink, rep *reporter) (*Report, error) {
	o, err := openArchive(archive)
	if err != nil {
		return nil, err
	}
	defer o.f.Close()
	return o.readFrom(ctx, lim, s, rep)
}

// opened is an archive file and what its end and its neighbour say about it.
type opened struct {
	f    *os.File
	name string
	man  *Manifest // nil if it has none
	emb  embedded
}

// openArchive opens archive and reads its manifest, if it has one.
func openArchive(archive string) (*opened, error) {
	f, err := os.Open(archive)
	if err != nil {
		return nil, fmt.Errorf("open archive: %w", err)
	}
	man, emb, err := manifestOf(f, archive)
	if err != nil {
		_ = f.Close() // Read-only.
		return nil, err
	}
	return &opened{f: f, name: archive, man: man, emb: emb}, nil
}

// readFrom reads the archive from its start: its data through the scan,
// then the manifest frame, if any, into the whole file's checksum.
func (o *opened) readFrom(ctx context.Context, lim Limits, s sink, rep *reporter) (*Report, error) {
	if _, err := o.f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("rewind archive: %w", err)
	}
	sum := sha256.New()
	sc, err := scan(ctx, io.LimitReader(o.f, o.emb.dataLen), sum, lim, s, rep)
	if err != nil {
		return nil, err
	}
	r := &Report{Archive: o.name, Format: sc.Format, Files: sc.Files, Dirs: sc.Dirs, Symlinks: sc.Symlinks,
		Bytes: sc.Bytes, Size: sc.Size, SHA256: sc.SHA256, Manifest: o.man}
	if o.emb.man == nil {
		if o.man == nil {
			return r, nil
		}
		return r, r.match(o.man, o.man.ArchiveSize, r.Size, o.man.SHA256, r.SHA256)
	}
	n, err := io.Copy(sum, o.f)
	if err != nil {
		return nil, fmt.Errorf("read the manifest frame of %s: %w", o.name, err)
	}
	r.Size, r.SHA256 = sc.Size+n, hex.EncodeToString(sum.Sum(nil))
	if err := r.match(o.emb.man, o.emb.man.DataSize, sc.Size, o.emb.man.DataSHA256, sc.SHA256); err != nil {
		return nil, err
	}
	if o.man.SHA256 != "" && o.man.SHA256 != r.SHA256 {
		// The copy beside described the same data in another frame: stale.
		m := *o.emb.man
		m.ArchiveSize = r.Size
		r.Manifest = &m
	}
	return r, nil
}

// match compares what the scan found with m, whose checksum and size
// describe size bytes hashing to sha: the whole file for a manifest beside
// the archive, the data before the frame for the one inside.
func (r *Report) match(m *Manifest, wantSize, size int64, wantSHA, sha string) error {
	if m == nil {
		return nil
	}
	type field struct {
		name      string
		want, got any
	}
	for _, f := range []field{
		{"sha256", wantSHA, sha}, {"archive size", wantSize, size},
		{"files", m.Files, r.Files}, {"directories", m.Dirs, r.Dirs},
		{"symlinks", m.Symlinks, r.Symlinks}, {"bytes", m.Bytes, r.Bytes},
	} {
		if f.want != f.got {
			return fmt.Errorf("%w: %s is %v, the manifest says %v; the archive was damaged or replaced: restore an older snapshot",
				ErrChecksum, f.name, f.got, f.want)
		}
	}
	return nil
}

// Restore unpacks archive into the directory dir. It unpacks into a new
// directory beside dir and swaps it in with one rename only when the whole
// archive was read, passed every rule (W5) and matched its manifest: a
// refused, damaged or cancelled restore leaves dir exactly as it was.
//
// dir may be missing or empty; a non-empty dir is refused with ErrNotEmpty
// unless opts.Replace. Cancellation behaves as for Save (W2, W3).
func Restore(ctx context.Context, archive, dir string, opts RestoreOptions) (*Report, error) {
	rep := newReporter(opts.OnProgress)
	defer rep.stop()
	r, err := restore(ctx, archive, dir, opts, rep)
	if err != nil {
		return nil, settle(ctx, fmt.Errorf("restore %s into %s: %w", archive, dir, err))
	}
	return r, nil
}

// restoreMarker names the temp directory of a restore beside its workspace.
const restoreMarker = ".restore" + tempMarker

type workspaceState int

const (
	stateMissing workspaceState = iota
	stateEmpty
	stateFull
)

func restore(ctx context.Context, archive, dir string, opts RestoreOptions, rep *reporter) (*Report, error) {
	dir, state, err := destination(dir, opts.Replace)
	if err != nil {
		return nil, err
	}
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", parent, err)
	}
	removeStaleRestores(parent, filepath.Base(dir))
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+restoreMarker+"*")
	if err != nil {
		return nil, fmt.Errorf("create a temporary directory beside the workspace: %w; check that %s is writable", err, parent)
	}
	swapped := false
	defer func() {
		if !swapped {
			_ = removeTree(tmp) // Best effort: a leftover is a hidden temp directory beside the workspace.
		}
	}()
	s, err := newFSSink(tmp)
	if err != nil {
		return nil, err
	}
	defer s.close() // After the swap: the lock guards tmp until it is the workspace.
	r, err := unpack(ctx, archive, opts.Limits, s, rep)
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	old, err := swap(tmp, dir, state)
	if err != nil {
		return nil, err
	}
	swapped = true
	if err := syncDir(parent); syncToDisk && err != nil {
		return nil, err
	}
	if old != "" {
		if err := removeTree(old); err != nil {
			r.Warnings = append(r.Warnings, fmt.Sprintf("the old workspace is left at %s (%v): remove it by hand", old, err))
		}
	}
	return r, nil
}

// destination makes dir absolute and tells what is there, refusing a
// non-empty workspace unless replace.
func destination(dir string, replace bool) (string, workspaceState, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", 0, err
	}
	state, err := inspect(dir)
	if err != nil {
		return "", 0, err
	}
	if state == stateFull && !replace {
		return "", 0, fmt.Errorf("%w: %s; restore into a missing or empty directory, or replace it (--replace, restore = \"replace\")", ErrNotEmpty, dir)
	}
	return dir, state, nil
}

// unpack reads archive into s and completes the tree s built.
func unpack(ctx context.Context, archive string, lim Limits, s *fsSink, rep *reporter) (*Report, error) {
	r, err := read(ctx, archive, lim, s, rep)
	if err != nil {
		return nil, err
	}
	if err := s.finish(); err != nil {
		return nil, err
	}
	if syncToDisk {
		// One syncfs instead of an fsync per file: the restored content is
		// on disk before the swap makes it the workspace, so a crash
		// afterwards cannot leave empty files behind the new name.
		if err := unix.Syncfs(s.root); err != nil {
			return nil, fmt.Errorf("sync the restored tree to disk: %w", err)
		}
	}
	return r, nil
}

// inspect tells whether the workspace is missing, empty or not.
func inspect(dir string) (workspaceState, error) {
	fi, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return stateMissing, nil
	case err != nil:
		return 0, fmt.Errorf("inspect workspace: %w", err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return 0, fmt.Errorf("workspace %s is a symlink; give the directory it points to", dir)
	case !fi.IsDir():
		return 0, fmt.Errorf("workspace %s is not a directory; move it away or choose another path", dir)
	}
	d, err := os.Open(dir)
	if err != nil {
		return 0, fmt.Errorf("inspect workspace: %w", err)
	}
	defer d.Close()
	if _, err := d.Readdirnames(1); err == io.EOF {
		return stateEmpty, nil
	} else if err != nil {
		return 0, fmt.Errorf("inspect workspace: %w", err)
	}
	return stateFull, nil
}

// removeTree removes a tree we created, even where restored directory
// modes deny writing.
func removeTree(root string) error {
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o700) // Best effort: RemoveAll reports what is left.
		}
		return nil
	})
	return os.RemoveAll(root)
}
