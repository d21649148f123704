package snapshot

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
)

// An archive written by Save carries its manifest at its end, in a zstd
// skippable frame that every zstd decoder passes over (zstd -d, tar
// --zstd, older sandmux):
//
//	magic 0x184D2A5A (u32 LE) | payload size (u32 LE) | JSON | CRC-32 of JSON (u32 LE) | JSON size (u32 LE) | "SANDMUXM"
//
// The fixed footer lets a reader find the manifest from the end of the file
// without decompressing anything, which keeps `snapshot ls` cheap. The
// manifest cannot hash the file that holds it, so this copy describes the
// data before the frame (Manifest.DataSize, DataSHA256).
const (
	frameMagic  = 0x184D2A5A
	frameTag    = "SANDMUXM"
	frameHeader = 8                     // magic and payload size
	frameFooter = 4 + 4 + len(frameTag) // CRC, JSON size and tag
	maxManifest = 16 << 20              // far above any manifest Save writes (notes and patterns are few)
	frameExtra  = frameHeader + frameFooter
)

// manifestFrame encodes m as the frame Save appends to an archive.
func manifestFrame(m *Manifest) ([]byte, error) {
	js, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encode manifest: %w", err)
	}
	if len(js) > maxManifest {
		return nil, fmt.Errorf("the manifest takes %d bytes, more than %d; use fewer snapshot_exclude patterns", len(js), maxManifest)
	}
	b := make([]byte, 0, len(js)+frameExtra)
	b = binary.LittleEndian.AppendUint32(b, frameMagic)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(js)+frameFooter))
	b = append(b, js...)
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(js))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(js)))
	return append(b, frameTag...), nil
}

// embedded is what the end of an archive says about it.
type embedded struct {
	man     *Manifest // nil for an archive without a manifest frame
	dataLen int64     // bytes before the frame; the whole file without one
}

// readEmbedded looks for a manifest frame at the end of f, size bytes long.
// An archive without one (an older sandmux's, or one made by tar) is not an
// error; a frame that is there but damaged is, since its archive is then
// damaged too.
func readEmbedded(f io.ReaderAt, size int64, name string) (embedded, error) {
	none := embedded{dataLen: size}
	if size < int64(frameExtra) {
		return none, nil
	}
	var foot [frameFooter]byte
	if _, err := f.ReadAt(foot[:], size-int64(frameFooter)); err != nil {
		return none, fmt.Errorf("read the end of %s: %w", name, err)
	}
	if string(foot[8:]) != frameTag {
		return none, nil
	}
	n := int64(binary.LittleEndian.Uint32(foot[4:8]))
	start := size - int64(frameExtra) - n
	if n > maxManifest || start < 0 {
		return none, fmt.Errorf("%w: the manifest frame at the end of %s claims %d bytes; the archive is damaged: restore an older snapshot", ErrCorrupt, name, n)
	}
	buf := make([]byte, frameHeader+n)
	if _, err := f.ReadAt(buf, start); err != nil {
		return none, fmt.Errorf("read the manifest inside %s: %w", name, err)
	}
	if binary.LittleEndian.Uint32(buf) != frameMagic || int64(binary.LittleEndian.Uint32(buf[4:])) != n+int64(frameFooter) {
		return none, fmt.Errorf("%w: the manifest frame at the end of %s has a damaged header; restore an older snapshot", ErrCorrupt, name)
	}
	js := buf[frameHeader:]
	if crc32.ChecksumIEEE(js) != binary.LittleEndian.Uint32(foot[:4]) {
		return none, fmt.Errorf("%w: the manifest inside %s does not match its checksum; restore an older snapshot", ErrCorrupt, name)
	}
	m, err := decodeManifest(js, "inside "+name, "restore an older snapshot")
	if err != nil {
		return none, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return embedded{man: m, dataLen: start}, nil
}

// decodeManifest decodes a manifest found at where; next says what to do
// about a damaged one.
func decodeManifest(data []byte, where, next string) (*Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("manifest %s is damaged: %w; %s", where, err, next)
	}
	if m.Version != ManifestVersion {
		return nil, fmt.Errorf("manifest %s has version %d, this sandmux reads %d; use a matching sandmux", where, m.Version, ManifestVersion)
	}
	return &m, nil
}

// resolveManifest picks the manifest that describes an archive of size
// bytes: the copy inside it when it has one (the archive is authoritative),
// else the copy beside it. The copy beside is only a cache of the one
// inside: used when it describes the same data (it also knows the whole
// file's checksum), ignored when stale, as after a crash between a save's
// two renames. beside may be nil.
func resolveManifest(e embedded, beside *Manifest, size int64) *Manifest {
	if e.man == nil {
		return beside
	}
	if beside != nil && beside.DataSHA256 == e.man.DataSHA256 && beside.DataSize == e.man.DataSize && beside.ArchiveSize == size {
		return beside
	}
	m := *e.man
	m.ArchiveSize, m.SHA256 = size, ""
	return &m
}

// readBeside reads the manifest stored beside archive; a missing one gives
// nil and no error.
func readBeside(archive string) (*Manifest, error) {
	p := ManifestPath(archive)
	f, err := os.Open(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read manifest %s: %w", p, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxManifest+1))
	if err != nil {
		return nil, fmt.Errorf("read manifest %s: %w", p, err)
	}
	if len(data) > maxManifest {
		return nil, fmt.Errorf("manifest %s is larger than %d bytes; it is not one sandmux wrote: move it away", p, maxManifest)
	}
	return decodeManifest(data, p, "verify the archive without it by moving it away")
}
