// Package vt is the screen of one sandbox pane: a wrapper around the
// github.com/hinshun/vt10x emulator that makes it show what a real terminal
// (xterm, with TERM=xterm-256color) would show.
//
// It owns:
//   - Screen: the emulator behind its own lock, written only with settled
//     (complete, valid UTF-8) text;
//   - the input filter (pre-parser) in front of vt10x, split-safe across
//     writes, that strips or rewrites what vt10x misreads, answers the
//     queries vt10x does not (DA1, DA2, XTVERSION, DECRQM, colour and size
//     queries) and tracks the modes the UI needs for keys, mouse and paste;
//   - the wide-character fix (a placeholder cell after each wide rune);
//   - the pen (pen.go): every SGR attribute and OSC 8 link tracked by the
//     filter, interned in a bounded table whose id is all vt10x stores,
//     so cells keep colours as written, faint, strikethrough, underline
//     styles and colours, links, and erases take only the background;
//   - grapheme clusters (cluster.go), interned in a bounded table behind
//     stand-in runes, so a cell holds the cluster as written;
//   - the scrollback ring, captured from the main screen as lines scroll off
//     and pulled back when the screen grows (grow.go);
//   - reflow (reflow.go, altflow.go): a width change joins the rows that
//     wrapped and wraps them again, the scrollback and the main screen
//     (under the alternate one too) as one;
//   - the reply queue: answers to the child go through a bounded queue that
//     the Screen's own goroutine drains to the PTY, dropping when full, so a
//     child that floods queries without reading can never block Write;
//   - Frame snapshots (cells, cursor, modes, title) into caller-owned buffers
//     and the renderer that turns a Frame into SGR runs or plain text;
//   - search (match.go, search.go): the one Matcher of queries (smart case,
//     "re:" for a regular expression) and Screen.Search over scrollback and
//     rows, which copies string headers under the lock and matches after.
//
// It does not own the PTY, the output pump or the UTF-8 collector (package
// session), nor key encoding, layout or anything Bubble Tea (package ui). It
// never imports either.
//
// Data flow inside a Screen:
//
//	Write(text) ─► filter (ansi.Parser + string collector)
//	                 ├─ text ─► width/composition/placement ─┐
//	                 ├─ canonical sequences ──────────────────┼─► vt10x (under Screen.mu)
//	                 ├─ modes, title, scroll region (tracked) │        │ CPR, DSR
//	                 └─ replies ──────────────────────────────┴──► reply queue ─► goroutine ─► PTY
//	scroll points ─► top row copied into the scrollback ring before vt10x scrolls it away
//	Snapshot(&frame) under Screen.mu ─► Render / RenderText outside the lock
package vt
