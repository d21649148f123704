// Package sshattach lets a terminal attach to a sandmux server over SSH:
// it listens, authenticates keys, and turns each accepted session into an
// attach.Stream for the server to run a client's UI over.
//
//	ssh -tt ──TCP──▶ accept loop (bounded: MaxConns)
//	                   │ handshake, public-key auth (authorized or read-only keys)
//	                   ▼
//	                 session: pty-req required ──▶ stream ──▶ Attacher.Attach
//	                   ▲  window-change ──▶ Resizes()         │
//	                   └── Finish: summary, exit-status ◀─────┘
//
// sshattach owns the listener, the host key, the key files' meaning, the
// connections and every goroutine serving them. It does not own what runs
// over a stream (the server and package ui do), nor the config keys that
// fill its Config (the caller reads those).
package sshattach
