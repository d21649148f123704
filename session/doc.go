// Package session supervises PTYs: one Session per running sandbox command,
// and the Manager that registers them, tears them down and shuts them all
// down.
//
// It owns the lifecycle of a session (starting → running → exited | closing
// → closed), the output pump (one reader goroutine pushing raw bytes into a
// bounded Collector, one consumer goroutine collecting settled UTF-8 text
// and handing it to the session's sinks; a short read, while no window
// runs, the reader settles and hands over itself), input admission, and
// teardown:
// signal escalation, verification that the process group is empty, closing
// the PTY, joining the goroutines, and the after-teardown hook (snapshots).
//
// It renders nothing and knows nothing of terminals' contents: a screen or
// a recorder is just a Sink. Contracts O1–O8, S1–S3 and C1–C12 in the
// design's CONTRACTS.md are pinned by tests named after them.
//
//	provider PTY ─► reader ─► Collector (bounded) ─► consumer ─► sinks (screen, recorder)
//	                                                      │
//	waiter: reaped ∧ output closed ─► exited              └─► LastOutput
//	start:    admitted (owned: Shutdown cancels it, Wait counts it) ─► Open ─► registered | released
//	teardown: stop input ─► HUP/TERM/KILL ─► group empty ─► close PTY ─► join ─► hook ─► closed
//	          (each provider call bounded by its stage; one that overruns is left, owned, and joined after the close)
package session
