package control

import (
	"context"
	"errors"
	"fmt"
	"net"
	"syscall"
)

// Client is one connection to a server, sending requests one at a time.
type Client struct {
	conn net.Conn
	r    *Reader
}

// NewClient speaks the protocol over conn; Close closes it.
func NewClient(conn net.Conn) *Client { return &Client{conn: conn, r: NewReader(conn)} }

// Close closes the connection.
func (c *Client) Close() error { return c.conn.Close() }

// Call sends req and returns the server's reply; a reply that is not OK
// comes back as an error with the server's message. ctx ending closes the
// connection, since a reply cannot be abandoned halfway.
func (c *Client) Call(ctx context.Context, req Request) (Reply, error) {
	stop := context.AfterFunc(ctx, func() { _ = c.conn.Close() }) // Best effort: unblocks the read.
	defer stop()
	req.V = Version
	if err := Encode(c.conn, req); err != nil {
		// A server refusing the connection (another user, too many
		// connections) writes why and hangs up, maybe before the request
		// went out: its reason is still there to read.
		if hungUp(err) {
			if rep, rerr := c.next(); rerr == nil && !rep.OK {
				return rep, fmt.Errorf("%s", rep.Error)
			}
		}
		return Reply{}, errors.Join(err, context.Cause(ctx))
	}
	rep, err := c.next()
	if err != nil {
		if ctx.Err() != nil {
			return Reply{}, context.Cause(ctx)
		}
		return Reply{}, err
	}
	if !rep.OK {
		return rep, fmt.Errorf("%s", rep.Error)
	}
	return rep, nil
}

// Events asks for the event stream and calls fn for each event until ctx
// ends (nil), the server ends the stream (its message), or fn returns
// false (nil).
func (c *Client) Events(ctx context.Context, fn func(Event) bool) error {
	if _, err := c.Call(ctx, Request{Op: OpEvents}); err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, func() { _ = c.conn.Close() }) // Best effort: unblocks the read.
	defer stop()
	for {
		rep, err := c.next()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if !rep.OK {
			return fmt.Errorf("%s", rep.Error)
		}
		if rep.Event != nil && !fn(*rep.Event) {
			return nil
		}
	}
}

// hungUp reports whether a write failed because the peer closed.
func hungUp(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET)
}

func (c *Client) next() (Reply, error) {
	line, err := c.r.Line()
	if err != nil {
		return Reply{}, fmt.Errorf("read the server's reply: %w (is the server still running?)", err)
	}
	var rep Reply
	if err := decodeReply(line, &rep); err != nil {
		return Reply{}, err
	}
	return rep, nil
}
