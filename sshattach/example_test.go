package sshattach_test

import (
	"context"
	"log"
	"os/signal"
	"syscall"

	"github.com/sandmux/sandmux/attach"
	"github.com/sandmux/sandmux/sshattach"
)

// server stands for the sandmux server, whose Attach runs a client's UI.
type server struct{}

func (server) Attach(ctx context.Context, st attach.Stream) error {
	return st.Finish(attach.Exit{Detached: true})
}

// How a server wires SSH: New before it reports itself started, so a bad
// key file or an address in use is the error it exits with; Serve on a
// goroutine it waits for.
func Example() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	cfg := sshattach.DefaultConfig()
	cfg.Listen = "127.0.0.1:2222"                             // server.ssh_listen
	cfg.AuthorizedKeys = "/home/me/.config/sandmux/ssh_keys"  // server.ssh_authorized_keys
	cfg.ReadOnlyKeys = "/home/me/.config/sandmux/ssh_ro_keys" // server.ssh_read_only_keys
	cfg.Log = func(msg string) { log.Print("ssh: " + msg) }   // the server's log
	s, err := sshattach.New(cfg)
	if err != nil {
		log.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, server{}) }()
	log.Printf("ssh attach on %s, host key %s", s.Addr(), s.HostKeyPath())
	// … on quit: every client was finished, then ctx ends, and
	if err := <-done; err != nil {
		log.Print(err)
	}
}
