// Package attach carries one attached terminal between a sandmux client
// and its server: what the server needs to run a client's UI over it
// (Stream), and the wire that carries a local terminal over the server's
// Unix socket.
//
// attach owns the attached terminal's bytes, sizes and ending. It does
// not own sessions or panes (the server does), sockets (package
// endpoint) or the UI drawn over a stream (package ui).
package attach
