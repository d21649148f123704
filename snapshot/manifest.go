package snapshot

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// ManifestVersion is the version of the manifest format written by Save.
const ManifestVersion = 1

// ManifestSuffix is appended to an archive's file name to name its manifest.
const ManifestSuffix = ".json"

// Manifest describes one archive. Save stores it twice: inside the
// archive, in a frame at its end (the authoritative copy; see frame.go),
// and beside it as ManifestPath(archive), a cache for people and for older
// sandmux, rewritten by every save and ignored by readers when it does not
// describe the archive's data.
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
	// The copy inside the archive cannot know them (it would hash itself):
	// there they are zero, and a reader fills in ArchiveSize.
	ArchiveSize int64  `json:"archive_size"`
	SHA256      string `json:"sha256"`
	// DataSize and DataSHA256 describe the archive's data: its bytes before
	// the manifest frame. Empty in manifests of archives without a frame
	// (those of sandmux before the frame, or made by other tools).
	DataSize   int64  `json:"data_size,omitempty"`
	DataSHA256 string `json:"data_sha256,omitempty"`
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

// ReadManifest reads archive's manifest: the copy inside the archive when
// it has one, else the copy beside it (see Manifest). It returns an error
// wrapping fs.ErrNotExist when there is neither.
func ReadManifest(archive string) (*Manifest, error) {
	f, err := os.Open(archive)
	if err != nil {
		return nil, fmt.Errorf("read the manifest of %s: %w", archive, err)
	}
	defer f.Close()
	m, _, err := manifestOf(f, archive)
	if err == nil && m == nil {
		err = fmt.Errorf("no manifest inside %s or beside it (%s): %w", archive, ManifestPath(archive), fs.ErrNotExist)
	}
	return m, err
}

// manifestOf finds the manifest of the open archive f (nil if it has none)
// and where its data ends.
func manifestOf(f *os.File, archive string) (*Manifest, embedded, error) {
	info, err := f.Stat()
	if err != nil {
		return nil, embedded{}, fmt.Errorf("stat %s: %w", archive, err)
	}
	e, err := readEmbedded(f, info.Size(), archive)
	if err != nil {
		return nil, embedded{}, err
	}
	beside, err := readBeside(archive)
	if err != nil && e.man == nil {
		return nil, embedded{}, err
	}
	return resolveManifest(e, beside, info.Size()), e, nil
}

func writeManifest(archive string, m *Manifest) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("encode manifest: %w", err)
	}
	return writeFileAtomic(ManifestPath(archive), append(data, '\n'))
}
