// Package sshattach lets a terminal attach to a sandmux server over SSH:
// it listens, authenticates keys, and turns each accepted session into an
// attach.Stream for the server to run a client's UI over.
//
//	ssh -tt ──TCP──▶ accept loop: MaxHandshakes slots (a new one closes the oldest)
//	                   │ handshake, public-key auth (authorized or read-only keys,
//	                   │ files others may write refused); then a MaxConns slot
//	                   ▼
//	                 session: env requests bounded, pty-req required ──▶ stream ──▶ Attacher.Attach
//	                   ▲  window-change ──▶ Resizes()                          │
//	                   └── Write, Finish (each within WriteTimeout, or cut off) ◀┘
//
// Refusals a stranger can cause are logged at a bounded rate (limits.go).
//
// sshattach owns the listener, the host key, the key files' meaning, the
// connections and every goroutine serving them. It does not own what runs
// over a stream (the server and package ui do), nor the config keys that
// fill its Config (the caller reads those).
package sshattach
