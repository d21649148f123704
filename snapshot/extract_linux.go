package snapshot

import (
	"archive/tar"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// fsSink creates admitted members under a fresh private directory. Every
// entry is created relative to its parent's descriptor, and every
// descriptor is opened with O_NOFOLLOW from the root down, so no symlink
// (ours or anyone's) is ever followed. Modes keep the permission bits only
// (setuid, setgid and sticky are dropped); owners are not restored.
type fsSink struct {
	root     int            // descriptor of the temp root
	rootPath string         // for messages and the root's own times
	dirs     map[string]int // open descriptors of directories below the root
	pending  []dirMeta      // directory modes and times, applied last
	buf      []byte
}

type dirMeta struct {
	name  string
	mode  uint32
	mtime time.Time // zero: leave the time of creation
}

// maxOpenDirs bounds the descriptor cache; archives list directories
// depth-first, so a small cache hits almost always.
const maxOpenDirs = 128

func newFSSink(rootPath string) (*fsSink, error) {
	fd, err := unix.Open(rootPath, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", rootPath, err)
	}
	// Held until close, so removeStaleRestores can tell this live
	// directory from one a killed restore left behind.
	if err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB); err != nil {
		_ = unix.Close(fd) // Best effort: unusable anyway.
		return nil, fmt.Errorf("lock %s: %w", rootPath, err)
	}
	return &fsSink{root: fd, rootPath: rootPath, dirs: map[string]int{}, buf: make([]byte, copyBuffer)}, nil
}

func (s *fsSink) close() {
	for _, fd := range s.dirs {
		_ = unix.Close(fd) // Best effort: read-only directory descriptors.
	}
	clear(s.dirs)
	_ = unix.Close(s.root) // Best effort: as above.
}

// dirfd returns a descriptor of the directory name ("." is the root).
func (s *fsSink) dirfd(name string) (int, error) {
	if name == "." {
		return s.root, nil
	}
	if fd, ok := s.dirs[name]; ok {
		return fd, nil
	}
	parent, err := s.dirfd(path.Dir(name))
	if err != nil {
		return -1, err
	}
	fd, err := unix.Openat(parent, path.Base(name), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("open directory %s: %w", name, err)
	}
	if len(s.dirs) >= maxOpenDirs {
		for n, d := range s.dirs {
			_ = unix.Close(d) // Best effort: read-only directory descriptors.
			delete(s.dirs, n)
		}
	}
	s.dirs[name] = fd
	return fd, nil
}

// parent returns the descriptor of name's directory and name's last
// component, after creating the member's implicit parents.
func (s *fsSink) parent(m member) (int, string, error) {
	for _, p := range m.implicit {
		pfd, err := s.dirfd(path.Dir(p))
		if err != nil {
			return -1, "", err
		}
		if err := unix.Mkdirat(pfd, path.Base(p), 0o700); err != nil {
			return -1, "", fmt.Errorf("create directory %s: %w", p, err)
		}
		s.pending = append(s.pending, dirMeta{name: p, mode: 0o755})
	}
	pfd, err := s.dirfd(path.Dir(m.name))
	return pfd, path.Base(m.name), err
}

func (s *fsSink) dir(m member, h *tar.Header) error {
	if m.name == "." {
		s.pending = append(s.pending, dirMeta{name: ".", mode: perm(h.Mode), mtime: h.ModTime})
		return nil
	}
	pfd, base, err := s.parent(m)
	if err != nil {
		return err
	}
	// Created 0700 so we can fill it whatever its final mode; EEXIST means
	// the checker already let an implicit parent become this member.
	if err := unix.Mkdirat(pfd, base, 0o700); err != nil && !errors.Is(err, unix.EEXIST) {
		return fmt.Errorf("create directory: %w", err)
	}
	s.pending = append(s.pending, dirMeta{name: m.name, mode: perm(h.Mode), mtime: h.ModTime})
	return nil
}

func (s *fsSink) file(m member, h *tar.Header, r io.Reader) error {
	pfd, base, err := s.parent(m)
	if err != nil {
		return err
	}
	fd, err := unix.Openat(pfd, base, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return fmt.Errorf("create file: %w", err)
	}
	f := os.NewFile(uintptr(fd), m.name)
	// writerOnly hides os.File's ReadFrom, which would copy through a small
	// buffer of its own instead of ours.
	_, err = io.CopyBuffer(writerOnly{f}, r, s.buf)
	if err == nil {
		err = unix.Fchmod(fd, perm(h.Mode))
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write file: %w", err)
	}
	return setTimes(pfd, base, h.ModTime)
}

func (s *fsSink) symlink(m member, h *tar.Header) error {
	pfd, base, err := s.parent(m)
	if err != nil {
		return err
	}
	if err := unix.Symlinkat(h.Linkname, pfd, base); err != nil {
		return fmt.Errorf("create symlink: %w", err)
	}
	return setTimes(pfd, base, h.ModTime)
}

// finish applies directory modes and times, deepest first, so that a
// read-only or non-searchable directory is closed only after its children
// are done, and filling a directory does not move its time afterwards.
func (s *fsSink) finish() error {
	slices.SortStableFunc(s.pending, func(a, b dirMeta) int { return cmp.Compare(depth(b.name), depth(a.name)) })
	for _, d := range s.pending {
		fd, err := s.dirfd(d.name)
		if err != nil {
			return err
		}
		if err := unix.Fchmod(fd, d.mode); err != nil {
			return fmt.Errorf("set mode of directory %s: %w", d.name, err)
		}
		if d.mtime.IsZero() {
			continue
		}
		if d.name == "." {
			if err := setTimes(unix.AT_FDCWD, s.rootPath, d.mtime); err != nil {
				return err
			}
			continue
		}
		pfd, err := s.dirfd(path.Dir(d.name))
		if err != nil {
			return err
		}
		if err := setTimes(pfd, path.Base(d.name), d.mtime); err != nil {
			return err
		}
	}
	return nil
}

// depth is how deep a directory lies; the root comes after all others.
func depth(name string) int {
	if name == "." {
		return -1
	}
	return strings.Count(name, "/")
}

func setTimes(dirfd int, name string, mtime time.Time) error {
	ts := unix.NsecToTimespec(mtime.UnixNano())
	if err := unix.UtimesNanoAt(dirfd, name, []unix.Timespec{ts, ts}, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return fmt.Errorf("set times of %s: %w", name, err)
	}
	return nil
}

// perm keeps the permission bits of a tar mode: setuid, setgid and sticky
// are dropped (W5).
func perm(mode int64) uint32 { return uint32(mode) & 0o777 }

type writerOnly struct{ io.Writer }

// discardSink reads content and writes nothing: verify.
type discardSink struct{ buf []byte }

func (discardSink) dir(member, *tar.Header) error     { return nil }
func (discardSink) symlink(member, *tar.Header) error { return nil }
func (s discardSink) file(_ member, _ *tar.Header, r io.Reader) error {
	_, err := io.CopyBuffer(writerOnly{io.Discard}, r, s.buf)
	return err
}

// removeStaleRestores removes the temp directories of killed restores of
// the workspace base in parent: those whose lock no live restore holds.
func removeStaleRestores(parent, base string) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return // The restore that follows reports on parent itself.
	}
	prefix := "." + base + restoreMarker
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		p := path.Join(parent, e.Name())
		fd, err := unix.Open(p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			continue // Gone already.
		}
		if unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB) == nil {
			_ = removeTree(p) // Best effort: a hidden leftover, tried again next time.
		}
		_ = unix.Close(fd) // Best effort: read-only; closing drops the lock.
	}
}
