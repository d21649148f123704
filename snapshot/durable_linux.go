package snapshot

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// tempFile is a file written beside its final name and renamed into place
// only once complete and on disk (W4). While it is open the writer holds an
// exclusive flock on it, so a cleaner can tell a live temp file from one a
// crashed process left behind.
type tempFile struct {
	f       *os.File
	final   string
	written int64
	started int64 // bytes handed to writeback so far
}

const tempMarker = ".tmp-"

// writebackChunk is how often a temp file asks the kernel to start writing
// its dirty pages: the final fsync then waits for the tail, not for
// everything.
const writebackChunk = 8 << 20

func createTemp(final string) (*tempFile, error) {
	dir, base := filepath.Split(final)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+tempMarker+"*")
	if err != nil {
		return nil, fmt.Errorf("create a temporary file beside %s: %w; check that the directory exists and is writable", final, err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		_ = f.Close()           // Best effort: the file is unusable anyway.
		_ = os.Remove(f.Name()) // Best effort: a stale cleaner removes it otherwise.
		return nil, fmt.Errorf("lock temporary file %s: %w", f.Name(), err)
	}
	return &tempFile{f: f, final: final}, nil
}

func (t *tempFile) Write(p []byte) (int, error) {
	n, err := t.f.Write(p)
	t.written += int64(n)
	if t.written-t.started >= writebackChunk {
		// Best effort: this only starts writeback early; commit's fsync is
		// what makes the file durable.
		_ = unix.SyncFileRange(int(t.f.Fd()), t.started, t.written-t.started, unix.SYNC_FILE_RANGE_WRITE)
		t.started = t.written
	}
	return n, err
}

// sync makes the content durable and closes the file.
func (t *tempFile) sync() error {
	if err := t.f.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", t.f.Name(), err)
	}
	if err := t.f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", t.f.Name(), err)
	}
	return nil
}

// rename moves the synced file to its final name. With noReplace an
// existing file is never overwritten (the error wraps os.ErrExist).
func (t *tempFile) rename(noReplace bool) error {
	if crashPoint != nil {
		crashPoint("rename to " + filepath.Base(t.final))
	}
	var err error
	if noReplace {
		err = unix.Renameat2(unix.AT_FDCWD, t.f.Name(), unix.AT_FDCWD, t.final, unix.RENAME_NOREPLACE)
		if errors.Is(err, unix.EEXIST) {
			err = os.ErrExist
		}
	} else {
		err = os.Rename(t.f.Name(), t.final)
	}
	if err != nil {
		return fmt.Errorf("rename %s to %s: %w", t.f.Name(), t.final, err)
	}
	return nil
}

// abort closes and removes the temp file. It is safe after sync or rename.
func (t *tempFile) abort() {
	_ = t.f.Close()           // Best effort: may already be closed by sync.
	_ = os.Remove(t.f.Name()) // Best effort: absent after a rename; a stale cleaner catches the rest.
}

// crashPoint, when set (only by tests), is called at each point where a
// crash must leave a usable snapshot: before every rename and when a save
// has renamed everything. A test process kills itself there.
var crashPoint func(point string)

// syncToDisk is switched off only by the fuzz test, which creates
// thousands of throwaway trees.
var syncToDisk = true

// syncDir makes renames and removals in dir durable.
func syncDir(dir string) error {
	if !syncToDisk {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("open directory %s to fsync it: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("fsync directory %s: %w", dir, err)
	}
	return nil
}

// writeFileAtomic writes data to name through a synced temp file. The
// caller syncs the directory.
func writeFileAtomic(name string, data []byte) error {
	t, err := createTemp(name)
	if err != nil {
		return err
	}
	if _, err := t.Write(data); err != nil {
		t.abort()
		return fmt.Errorf("write %s: %w", t.f.Name(), err)
	}
	if err := t.sync(); err != nil {
		t.abort()
		return err
	}
	if err := t.rename(false); err != nil {
		t.abort()
		return err
	}
	return nil
}

// isTemp reports whether a directory entry name is one of our temp files.
func isTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, tempMarker)
}

// staleAge is how old an unlocked temp file must be before it is removed:
// a writer takes its lock right after creating the file, and this margin
// keeps a cleaner out of that instant.
const staleAge = time.Minute

// removeStale deletes temp files in dir that no live writer holds, and
// reports how many it removed.
func removeStale(dir string, now time.Time) (int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", dir, err)
	}
	removed := 0
	var errs []error
	for _, e := range entries {
		if !isTemp(e.Name()) || !e.Type().IsRegular() {
			continue
		}
		p := filepath.Join(dir, e.Name())
		info, err := e.Info()
		if err != nil || now.Sub(info.ModTime()) < staleAge {
			continue // Gone already, or possibly just created.
		}
		f, err := os.Open(p)
		if err != nil {
			continue // Gone already.
		}
		if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil {
			if err := os.Remove(p); err != nil {
				errs = append(errs, fmt.Errorf("remove stale temp file %s: %w", p, err))
			} else {
				removed++
			}
		}
		_ = f.Close() // Best effort: read-only, and closing drops our lock.
	}
	return removed, errors.Join(errs...)
}
