// Package server is the sandmux server: the process that owns the
// sessions and their screens, and answers every attached client and
// `sandmux ctl` request over them.
//
// It owns the control handler (ctl*.go), which turns control requests
// into calls on the core that owns the panes. It does not own the
// protocol's messages or their decoding (package control), sockets
// (package endpoint) or how a pane is drawn (package ui).
package server
