// Package termsize bounds the size of a terminal sandmux draws on. A
// client says how large its terminal is (an SSH pty request or window
// change, the local wire's attach and resizes, the UI's own terminal),
// and the server lays out panes, emulates screens and composes frames
// at that size: a client that claims 65535×65535 cells would make it
// allocate gigabytes. Every size from outside passes through Clamp
// before the UI uses it (contract A10), so no path can forget the bound.
package termsize

import "fmt"

// The bounds, in cells. A 4K display at a 6-pixel font shows about 640
// columns and 180 rows, an 8K one twice that across: 1000×500 leaves room
// for any real terminal, and keeps one such client's screens and frames
// to tens of MiB.
const (
	MaxWidth  = 1000
	MaxHeight = 500
)

// Clamp returns w×h brought within the bounds, and whether it had to
// be. A side of zero or less is left as it is: it is no size, which
// callers already refuse or wait out.
func Clamp(w, h int) (cw, ch int, clamped bool) {
	cw, ch = min(w, MaxWidth), min(h, MaxHeight)
	return cw, ch, cw != w || ch != h
}

// Over describes a size Clamp changed, for a log line.
func Over(w, h int) string {
	cw, ch, _ := Clamp(w, h)
	return fmt.Sprintf("terminal size %dx%d is over the %dx%d bound: it is drawn at %dx%d", w, h, MaxWidth, MaxHeight, cw, ch)
}
