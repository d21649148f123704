package snapshot

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sandmux/sandmux/xdg"
)

// DefaultKeep is how many snapshots a Store keeps per sandbox by default.
const DefaultKeep = 5

// ArchiveSuffix ends the name of every archive in a Store.
const ArchiveSuffix = ".tar.zst"

// nameLayout names archives by their UTC creation time, so that sorting
// names sorts by time: 20261129T072644.123Z.tar.zst.
const nameLayout = "20060102T150405.000Z"

// Store keeps snapshots as root/<sandbox>/<time>.tar.zst, each carrying its
// manifest with a copy beside it, the newest Keep per sandbox. The root is usually
// $XDG_STATE_HOME/sandmux/snapshots (see DefaultRoot).
type Store struct {
	Root string
	// Keep is how many snapshots to keep per sandbox; 0 means DefaultKeep.
	Keep int
}

// Entry is one snapshot in a Store.
type Entry struct {
	Sandbox string
	Path    string
	Time    time.Time
	// Size is the archive's size in bytes.
	Size int64
	// Manifest is nil when it could not be read (ManifestErr says why).
	Manifest    *Manifest
	ManifestErr error
}

// DefaultRoot returns $XDG_STATE_HOME/sandmux/snapshots, falling back to
// ~/.local/state as the XDG spec says.
func DefaultRoot() (string, error) {
	state, err := xdg.State()
	if err != nil {
		return "", fmt.Errorf("find the snapshot store: %w; or pass --store", err)
	}
	return filepath.Join(state, "snapshots"), nil
}

func (s *Store) keep() int {
	if s.Keep <= 0 {
		return DefaultKeep
	}
	return s.Keep
}

// Dir returns the directory of sandbox's snapshots.
func (s *Store) Dir(sandbox string) string { return filepath.Join(s.Root, sandbox) }

// ValidSandboxName reports whether name can name a store directory.
func ValidSandboxName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\x00") || strings.HasPrefix(name, ".") {
		return fmt.Errorf("sandbox name %q cannot name a snapshot directory: use letters, digits, '-' or '_'", name)
	}
	return nil
}

// Save saves src as a new snapshot of sandbox, then removes the oldest
// beyond Keep and any temp file a crashed save left behind. Options are as
// for the package-level Save; opts.Sandbox is set to sandbox.
func (s *Store) Save(ctx context.Context, sandbox string, src Source, opts SaveOptions) (Entry, error) {
	if err := ValidSandboxName(sandbox); err != nil {
		return Entry{}, err
	}
	dir := s.Dir(sandbox)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Entry{}, fmt.Errorf("create snapshot directory %s: %w", dir, err)
	}
	if _, err := removeStale(dir, time.Now()); err != nil {
		return Entry{}, err
	}
	created := opts.Created
	if created.IsZero() {
		created = time.Now()
	}
	created = created.UTC().Truncate(time.Millisecond)
	// A name already taken (two saves in one millisecond) moves on by a
	// millisecond, so no snapshot is ever overwritten.
	path := filepath.Join(dir, created.Format(nameLayout)+ArchiveSuffix)
	for exists(path) || exists(ManifestPath(path)) {
		created = created.Add(time.Millisecond)
		path = filepath.Join(dir, created.Format(nameLayout)+ArchiveSuffix)
	}
	opts.Sandbox, opts.Created = sandbox, created
	m, err := Save(ctx, src, path, opts)
	if err != nil {
		return Entry{}, err
	}
	e := Entry{Sandbox: sandbox, Path: path, Time: created, Size: m.ArchiveSize, Manifest: m}
	if err := s.Prune(sandbox); err != nil {
		return e, fmt.Errorf("saved %s, but pruning old snapshots failed: %w", path, err)
	}
	return e, nil
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// List returns sandbox's snapshots, oldest first; with sandbox "" it lists
// every sandbox's, by sandbox name then time. Temp files of saves in
// progress or interrupted are never listed. A missing store lists nothing.
func (s *Store) List(sandbox string) ([]Entry, error) {
	var sandboxes []string
	if sandbox != "" {
		if err := ValidSandboxName(sandbox); err != nil {
			return nil, err
		}
		sandboxes = []string{sandbox}
	} else {
		entries, err := os.ReadDir(s.Root)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read snapshot store %s: %w", s.Root, err)
		}
		for _, e := range entries {
			if e.IsDir() && ValidSandboxName(e.Name()) == nil {
				sandboxes = append(sandboxes, e.Name())
			}
		}
	}
	var out []Entry
	for _, sb := range sandboxes {
		es, err := s.list(sb)
		if err != nil {
			return nil, err
		}
		out = append(out, es...)
	}
	return out, nil
}

func (s *Store) list(sandbox string) ([]Entry, error) {
	dir := s.Dir(sandbox)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read snapshot directory %s: %w", dir, err)
	}
	var out []Entry
	for _, e := range entries {
		t, ok := archiveTime(e.Name())
		if !ok || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // Removed since the directory was read.
		}
		p := filepath.Join(dir, e.Name())
		m, merr := ReadManifest(p)
		out = append(out, Entry{Sandbox: sandbox, Path: p, Time: t, Size: info.Size(), Manifest: m, ManifestErr: merr})
	}
	slices.SortFunc(out, func(a, b Entry) int { return a.Time.Compare(b.Time) })
	return out, nil
}

// archiveTime parses a store archive name; anything else (temp files,
// manifests, foreign files) is not an archive.
func archiveTime(name string) (time.Time, bool) {
	stem, ok := strings.CutSuffix(name, ArchiveSuffix)
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(nameLayout, stem)
	return t, err == nil
}

// Newest returns sandbox's newest snapshot; ok is false when it has none.
func (s *Store) Newest(sandbox string) (e Entry, ok bool, err error) {
	es, err := s.List(sandbox)
	if err != nil || len(es) == 0 {
		return Entry{}, false, err
	}
	return es[len(es)-1], true, nil
}

// Prune removes sandbox's snapshots beyond the newest Keep, each archive
// before its manifest (so an archive never lacks one), and stale temp
// files.
func (s *Store) Prune(sandbox string) error {
	es, err := s.List(sandbox)
	if err != nil {
		return err
	}
	var errs []error
	for len(es) > s.keep() {
		old := es[0]
		es = es[1:]
		if err := os.Remove(old.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("remove old snapshot %s: %w", old.Path, err))
			continue
		}
		if err := os.Remove(ManifestPath(old.Path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("remove manifest of old snapshot %s: %w", old.Path, err))
		}
	}
	dir := s.Dir(sandbox)
	if _, err := removeStale(dir, time.Now()); err != nil {
		errs = append(errs, err)
	}
	if err := s.removeOrphanManifests(dir); err != nil {
		errs = append(errs, err)
	}
	if err := syncDir(dir); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// removeOrphanManifests removes manifests whose archive is gone: a Prune
// cut short between its two removals, or a manifest written beside an
// archive by other means.
func (s *Store) removeOrphanManifests(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("read snapshot directory %s: %w", dir, err)
	}
	var errs []error
	for _, e := range entries {
		archive, ok := strings.CutSuffix(e.Name(), ManifestSuffix)
		if !ok {
			continue
		}
		if _, ok := archiveTime(archive); !ok || exists(filepath.Join(dir, archive)) {
			continue
		}
		// Leave young ones alone: a Prune or a save of another process may
		// be between its two steps.
		if info, err := e.Info(); err != nil || time.Since(info.ModTime()) < staleAge {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// ErrNoSnapshot is returned by RestoreNewest when a sandbox has none.
var ErrNoSnapshot = errors.New("no snapshot")

// RestoreNewest restores sandbox's newest snapshot into dir: the start-up
// restore of the lifecycle. Without opts.Replace (restore = true) it
// restores only into a missing or empty dir and otherwise returns an error
// wrapping ErrNotEmpty that names the snapshot it did not restore; with it
// (restore = "replace") it swaps the workspace. A sandbox without
// snapshots gives ErrNoSnapshot.
func (s *Store) RestoreNewest(ctx context.Context, sandbox, dir string, opts RestoreOptions) (Entry, *Report, error) {
	e, ok, err := s.Newest(sandbox)
	if err != nil {
		return Entry{}, nil, err
	}
	if !ok {
		return Entry{}, nil, fmt.Errorf("%w of sandbox %s in %s", ErrNoSnapshot, sandbox, s.Dir(sandbox))
	}
	r, err := Restore(ctx, e.Path, dir, opts)
	if errors.Is(err, ErrNotEmpty) {
		return e, nil, fmt.Errorf("sandbox %s: not restoring snapshot %s: %w", sandbox, e.Path, err)
	}
	return e, r, err
}
