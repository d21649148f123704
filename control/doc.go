// Package control is sandmux's control protocol: the requests a client
// (`sandmux ctl`, an attaching terminal) sends its server, the replies and
// events the server sends back, and how they are framed and checked.
//
// The protocol is JSON lines: each message is one JSON object on one line
// of at most MaxLine bytes, carrying the protocol version in "v". A
// request names its operation in "op"; each operation accepts its own
// fields only, so a misspelt or misplaced field is an error, never
// silently ignored. A connection whose first request is OpAttach stops
// speaking lines: the Server hands it to an Attacher (package attach),
// and it carries that package's frames. docs/PROTOCOL.md describes it
// all for people writing clients.
//
// control owns the message types, their strict decoding and validation,
// and the escapes `ctl send` accepts. It does not own sockets (package
// endpoint) or sessions (the server that answers).
package control
