package snapshot

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Archives written outside the store (snapshot save -o) are remembered in
// a list in the store's root, so that the store's listing shows them too
// while they exist. The list is bounded: the newest maxElsewhere paths.

// elsewhereList names the list in the store's root; it is a file, so no
// sandbox's directory can take its name.
const elsewhereList = "elsewhere.list"

// maxElsewhere bounds the paths remembered.
const maxElsewhere = 200

// Remember adds the archive at path to the store's list of archives kept
// outside it.
func (s *Store) Remember(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("remember the archive %s: %w", path, err)
	}
	if strings.ContainsAny(abs, "\n\r") {
		return fmt.Errorf("remember the archive: its path holds a line break")
	}
	paths, err := s.elsewherePaths()
	if err != nil {
		return err
	}
	paths = append(slices.DeleteFunc(paths, func(p string) bool { return p == abs }), abs)
	if len(paths) > maxElsewhere {
		paths = paths[len(paths)-maxElsewhere:]
	}
	if err := os.MkdirAll(s.Root, 0o700); err != nil {
		return fmt.Errorf("create the snapshot store %s: %w", s.Root, err)
	}
	data := strings.Join(paths, "\n") + "\n"
	if err := writeFileAtomic(filepath.Join(s.Root, elsewhereList), []byte(data)); err != nil {
		return fmt.Errorf("remember the archive %s in %s: %w", abs, s.Root, err)
	}
	return nil
}

func (s *Store) elsewherePaths() ([]string, error) {
	b, err := os.ReadFile(filepath.Join(s.Root, elsewhereList))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the list of archives outside the store: %w", err)
	}
	var paths []string
	for _, p := range strings.Split(string(b), "\n") {
		if filepath.IsAbs(p) {
			paths = append(paths, p)
		}
	}
	return paths, nil
}

// Elsewhere lists the remembered archives outside the store that still
// exist, oldest first; their Sandbox is the one their manifest names.
func (s *Store) Elsewhere() ([]Entry, error) {
	paths, err := s.elsewherePaths()
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil || !info.Mode().IsRegular() {
			continue // moved or removed since: listed no more
		}
		e := Entry{Path: p, Time: info.ModTime(), Size: info.Size()}
		e.Manifest, e.ManifestErr = ReadManifest(p)
		if e.Manifest != nil {
			e.Sandbox, e.Time = e.Manifest.Sandbox, e.Manifest.Created
		}
		out = append(out, e)
	}
	slices.SortStableFunc(out, func(a, b Entry) int { return a.Time.Compare(b.Time) })
	return out, nil
}
