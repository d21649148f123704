// Package server is a sandmux server: it owns the panes, their sessions
// and screens (one ui.Model, run in a loop of its own, loop.go, that
// reads no terminal), attaches clients to it — each client's input
// decoded in a goroutine of its own and sent to that loop — and
// answers the control protocol.
//
// server owns the clients' lives: attach, detach, a terminal that went
// away, and finishing every client with the quit's summary (cutting off
// one that does not take it). It bounds what a client can make it do,
// whatever its transport: the size it lays the client out at (termsize)
// and the input its decoder sees (input.go). It does not
// own how a client's bytes travel (attach, sshattach), the UI drawn for
// it (ui) or the sessions' teardown (session).
package server
