package snapshot

import (
	"archive/tar"
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"time"

	"golang.org/x/sys/unix"
)

// Source is a workspace to save: a local directory (DirSource) or a tar
// stream written by a provider (TarSource).
type Source interface {
	// emit passes every entry of the workspace to w, in order, and returns
	// only once it stopped touching the workspace (W2).
	emit(ctx context.Context, w *archiveWriter) error
	// String names the source for messages.
	String() string
}

// DirSource is a workspace on the local file system. It is read without
// following symlinks below dir: every entry is opened relative to its
// parent's descriptor with O_NOFOLLOW.
func DirSource(dir string) Source { return dirSource(dir) }

type dirSource string

func (d dirSource) String() string { return string(d) }

func (d dirSource) emit(ctx context.Context, w *archiveWriter) error {
	root, err := os.Open(string(d))
	if err != nil {
		return fmt.Errorf("open workspace %s: %w", d, err)
	}
	defer root.Close()
	var st unix.Stat_t
	if err := unix.Fstat(int(root.Fd()), &st); err != nil {
		return fmt.Errorf("stat workspace %s: %w", d, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return fmt.Errorf("workspace %s is not a directory; give the workspace directory", d)
	}
	if err := w.add(dirHeader(".", &st), nil); err != nil {
		return err
	}
	return d.walk(ctx, w, root, ".")
}

// walk emits the entries of the open directory dir, named rel, sorted by
// name so archives of the same tree are identical.
func (d dirSource) walk(ctx context.Context, w *archiveWriter, dir *os.File, rel string) error {
	entries, err := dir.ReadDir(-1)
	if err != nil {
		return fmt.Errorf("read directory %s in %s: %w", rel, d, err)
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int {
		if a.Name() < b.Name() {
			return -1
		}
		return 1
	})
	fd := int(dir.Fd())
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return context.Cause(ctx)
		}
		name := e.Name()
		child := path.Join(rel, name)
		switch t := e.Type(); {
		case t.IsDir():
			if w.excluded(child, true) {
				continue
			}
			if err := d.dir(ctx, w, fd, name, child); err != nil {
				return err
			}
		case t.IsRegular():
			if w.excluded(child, false) {
				continue
			}
			if err := d.file(w, fd, name, child); err != nil {
				return err
			}
		case t&fs.ModeSymlink != 0:
			if w.excluded(child, false) {
				continue
			}
			if err := d.symlink(w, fd, name, child); err != nil {
				return err
			}
		default:
			if !w.excluded(child, false) {
				w.man.note(child, "not a file, directory or symlink ("+t.Type().String()+"): not saved")
			}
		}
	}
	return nil
}

func (d dirSource) dir(ctx context.Context, w *archiveWriter, parent int, name, rel string) error {
	fd, err := unix.Openat(parent, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return d.vanished(w, rel, fmt.Errorf("open directory %s in %s: %w", rel, d, err))
	}
	f := os.NewFile(uintptr(fd), rel)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("stat %s in %s: %w", rel, d, err)
	}
	if err := w.add(dirHeader(rel, &st), nil); err != nil {
		return err
	}
	return d.walk(ctx, w, f, rel)
}

func (d dirSource) file(w *archiveWriter, parent int, name, rel string) error {
	fd, err := unix.Openat(parent, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return d.vanished(w, rel, fmt.Errorf("open %s in %s: %w", rel, d, err))
	}
	f := os.NewFile(uintptr(fd), rel)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("stat %s in %s: %w", rel, d, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		w.man.note(rel, "replaced while saving: not saved")
		return nil
	}
	if [2]uint64{st.Dev, st.Ino} == w.self {
		return nil // The archive being written, saved into its own workspace.
	}
	h := &tar.Header{Typeflag: tar.TypeReg, Name: rel, Mode: int64(st.Mode & 0o7777), Size: st.Size, ModTime: mtime(&st)}
	return w.add(h, f)
}

func (d dirSource) symlink(w *archiveWriter, parent int, name, rel string) error {
	var st unix.Stat_t
	if err := unix.Fstatat(parent, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return d.vanished(w, rel, fmt.Errorf("stat %s in %s: %w", rel, d, err))
	}
	buf := make([]byte, 4096)
	n, err := unix.Readlinkat(parent, name, buf)
	if err != nil {
		return d.vanished(w, rel, fmt.Errorf("read symlink %s in %s: %w", rel, d, err))
	}
	h := &tar.Header{Typeflag: tar.TypeSymlink, Name: rel, Linkname: string(buf[:n]), Mode: 0o777, ModTime: mtime(&st)}
	return w.add(h, nil)
}

// vanished turns "it disappeared since the directory was read" into a note:
// a workspace that changes while it is saved still gets a snapshot.
func (d dirSource) vanished(w *archiveWriter, rel string, err error) error {
	if errors.Is(err, unix.ENOENT) {
		w.man.note(rel, "removed while saving: not saved")
		return nil
	}
	return err
}

func dirHeader(rel string, st *unix.Stat_t) *tar.Header {
	return &tar.Header{Typeflag: tar.TypeDir, Name: rel, Mode: int64(st.Mode & 0o7777), ModTime: mtime(st)}
}

func mtime(st *unix.Stat_t) time.Time { return time.Unix(st.Mtim.Sec, st.Mtim.Nsec) }

// TarSource is a workspace a provider writes as a tar stream rooted at "."
// (providers.Workspace.ExportWorkspace). export runs on its own goroutine
// and must return when its context is cancelled or a write fails; Save
// waits for it before returning (W2). Entries a restore would refuse are
// left out and listed in the manifest's notes; hard links cannot be
// rebuilt from a stream, so exporters should dereference them (GNU tar:
// --hard-dereference).
func TarSource(export func(ctx context.Context, w io.Writer) error) Source {
	return tarSource(export)
}

// errStoppedReading is what an exporter's writes fail with once Save has
// stopped reading its stream.
var errStoppedReading = errors.New("snapshot stopped reading the workspace stream")

type tarSource func(ctx context.Context, w io.Writer) error

func (tarSource) String() string { return "workspace stream" }

func (t tarSource) emit(ctx context.Context, w *archiveWriter) (err error) {
	ctx, cancel := context.WithCancelCause(ctx)
	pr, pw := io.Pipe()
	// Stop reading as soon as the save is cancelled, even while the
	// exporter is busy elsewhere and writes nothing.
	stopRead := context.AfterFunc(ctx, func() {
		pr.CloseWithError(fmt.Errorf("%w: %w", errStoppedReading, context.Cause(ctx)))
	})
	done := make(chan error, 1)
	go func() {
		err := t(ctx, pw)
		pw.CloseWithError(err) // nil means io.EOF for the reader.
		done <- err
	}()
	defer func() {
		if err != nil {
			cancel(err)
		}
		// Unblock an exporter stuck writing to us, then wait for it: we
		// return only once it stopped touching the workspace (W2).
		stopRead()
		pr.CloseWithError(errStoppedReading)
		xerr := <-done
		cancel(nil)
		switch {
		case xerr == nil || errors.Is(xerr, errStoppedReading):
		case err == nil || errors.Is(err, xerr):
			// Our read failed with the exporter's own error: say it once.
			err = fmt.Errorf("export workspace: %w", xerr)
		default:
			// The exporter failed because we stopped: secondary (W3).
			err = errors.Join(err, fmt.Errorf("export workspace: %w", xerr))
		}
	}()
	return addTarStream(ctx, w, pr)
}

// addTarStream adds the entries of the tar stream r to w, leaving out what
// w excludes, then drains what follows the stream's end: padding only.
func addTarStream(ctx context.Context, w *archiveWriter, r io.Reader) error {
	tr := tar.NewReader(bufio.NewReaderSize(r, 1<<20))
	for {
		if err := ctx.Err(); err != nil {
			return context.Cause(ctx)
		}
		h, err := tr.Next()
		if err == io.EOF {
			// Let the exporter finish writing its padding, so that its own
			// result tells whether the export succeeded.
			// Its error, if any, is reported by emit's deferred wait.
			if n, _ := io.Copy(io.Discard, io.LimitReader(r, maxTrailing+1)); n > maxTrailing {
				return fmt.Errorf("the workspace tar stream goes on for more than %d bytes after its end; check the provider's export command", maxTrailing)
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("read the workspace tar stream: %w", err)
		}
		if h.Typeflag == tar.TypeXGlobalHeader {
			continue
		}
		rel := path.Clean(h.Name)
		if w.ex.ExcludedWithin(rel, h.Typeflag == tar.TypeDir) {
			continue
		}
		var content io.Reader
		if h.Typeflag == tar.TypeReg {
			content = tr
		}
		if err := w.add(h, content); err != nil {
			return err
		}
	}
}
