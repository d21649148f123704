package snapshot

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// ManifestVersion is the version of the manifest format written by Save.
const ManifestVersion = 1

// ManifestSuffix is appended to an archive's file name to name its manifest.
const ManifestSuffix = ".json"

// Manifest describes one archive. It is stored beside the archive, as
// ManifestPath(archive), and written before the archive is renamed into
// place, so an archive under its final name always has one.
type Manifest struct {
	Version  int       `json:"version"`
	Sandbox  string    `json:"sandbox,omitempty"`
	Provider string    `json:"provider,omitempty"`
	Created  time.Time `json:"created"`
	// Format is "tar+zstd" for archives written by Save.
	Format string `json:"format"`
	// Files, Dirs, Symlinks and Bytes describe the content: regular files,
	// directories (the root included when the archive names it), symlinks,
	// and the total size of file content.
	Files    int64 `json:"files"`
	Dirs     int64 `json:"dirs"`
	Symlinks int64 `json:"symlinks"`
	Bytes    int64 `json:"bytes"`
	// ArchiveSize and SHA256 (lowercase hex) describe the archive file.
	ArchiveSize int64  `json:"archive_size"`
	SHA256      string `json:"sha256"`
	// Exclude is the exclusion patterns the save used.
	Exclude []string `json:"exclude,omitempty"`
	// Notes lists entries the save left out because a restore would refuse
	// them (sockets, devices, links leaving the workspace) or could not
	// store faithfully (a file that changed while it was read), up to
	// maxNotes; NoteCount counts all of them.
	Notes     []Note `json:"notes,omitempty"`
	NoteCount int    `json:"note_count,omitempty"`
}

// Note is one entry a save left out or changed, and why.
type Note struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

const maxNotes = 100

func (m *Manifest) note(path, reason string) {
	m.NoteCount++
	if len(m.Notes) < maxNotes {
		m.Notes = append(m.Notes, Note{Path: path, Reason: reason})
	}
}

// ManifestPath returns where the manifest of archive is stored.
func ManifestPath(archive string) string { return archive + ManifestSuffix }

// ReadManifest reads the manifest stored beside archive. It returns an
// error wrapping fs.ErrNotExist when there is none.
func ReadManifest(archive string) (*Manifest, error) {
	p := ManifestPath(archive)
	data, err := os.ReadFile(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("no manifest %s: %w", p, err)
		}
		return nil, fmt.Errorf("read manifest %s: %w", p, err)
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("manifest %s is damaged: %w; verify the archive without it by moving it away", p, err)
	}
	if m.Version != ManifestVersion {
		return nil, fmt.Errorf("manifest %s has version %d, this sandmux reads %d; use a matching sandmux", p, m.Version, ManifestVersion)
	}
	return &m, nil
}

func writeManifest(archive string, m *Manifest) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("encode manifest: %w", err)
	}
	return writeFileAtomic(ManifestPath(archive), append(data, '\n'))
}
