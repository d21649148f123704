// Package snapshot owns workspace archives: saving a sandbox's workspace to a
// compressed tar archive that carries its manifest, restoring such an
// archive into a workspace, verifying one, and keeping the newest few per
// sandbox in a Store.
//
// It owns the format (PAX tar rooted at ".", zstd-compressed; restore also
// reads gzip and plain tar, recognised by their magic bytes), atomic durable
// writes (contract W4), safe extraction (W5), progress reports and
// cancellation that waits for the worker (W2, W3). It does not know about
// PTYs, sessions or the UI: a caller hands it a directory or a function that
// writes a tar stream, and runs it off the UI goroutine (W1).
//
// Data flow:
//
//	save:    DirSource (walk, openat) ─┐
//	         TarSource (provider tar) ─┴► exclude ─► rules ─► tar ─► zstd ─► manifest frame ─► temp file ─► fsync, rename, fsync dir, FILE.json
//	restore: file ─► sha256 ─► zstd|gzip|tar ─► byte cap ─► tar ─► rules (W5) ─► temp dir beside workspace ─► swap
//	verify:  the same as restore with a sink that writes nothing
//
// A snapshot is one file, so replacing one is one rename (W4). The
// manifest travels inside the archive, in a zstd skippable frame at its end
// that every zstd reader passes over, and the archive is authoritative. The
// copy beside it (FILE.json) is a cache for people and older sandmux,
// renamed after the archive with a directory fsync between: while it is
// stale (a crash between the two renames) readers ignore it. An archive
// without the frame (older sandmux, other tools) is checked against the
// manifest beside it, as before.
//
// Every refusal is a *MemberError naming the member. Progress goes to a
// callback on a goroutine the operation owns, so a slow consumer never slows
// the worker.
//
// The package is Linux-only: extraction relies on openat, renameat2 and
// O_NOFOLLOW to create files without following links.
package snapshot
