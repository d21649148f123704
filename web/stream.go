package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/sandmux/sandmux/attach"
)

// outQueue is how many messages may wait for a page (A23): a frame is
// one message, and while the queue is full Write waits, so the UI's
// Terminal replaces the frame it holds by each newer one; only the
// newest reaches a page that catches up.
const outQueue = 4

// Close codes a page understands (4000-4999 are the application's).
const (
	closeRevoked = websocket.StatusCode(4001) // the token was revoked or expired
	closeStalled = websocket.StatusCode(4002) // the page took nothing for too long
	closeBadMsg  = websocket.StatusCode(4003) // the page sent what it may not
)

var errFinished = errors.New("web: stream already finished")

// outMsg is one message to a page.
type outMsg struct {
	typ  websocket.MessageType
	data []byte
}

// ending is why a stream ended: the close code and reason the page gets.
type ending struct {
	code   websocket.StatusCode
	reason string
}

func (e *ending) Error() string { return "web page closed: " + e.reason }

// stream is one page as an attach.Stream. Three goroutines serve it,
// all started and waited for by Server.runPage: the reader (messages to
// input and sizes), the writer (the queue to the socket, and the close),
// and the pinger.
type stream struct {
	c            *websocket.Conn
	hello        attach.Hello
	prefix       []byte
	writeTimeout time.Duration

	in    chan []byte // the reader's input; closed when it ends
	sizes chan attach.Size
	out   chan outMsg

	ctx context.Context         // ends once the stream ended (end)
	end context.CancelCauseFunc // its cause is an *ending

	// attachCtx is the attach's: detach ends it, with verdict set first.
	attachCtx context.Context
	endAttach context.CancelFunc
	verdict   atomic.Pointer[ending] // why the server ended the attach; nil: it did not

	rest []byte // what Read has not returned yet; Read's alone

	mu       sync.Mutex // orders Write and Finish
	finished bool
	ended    attach.Exit
}

func newStream(ctx context.Context, c *websocket.Conn, h attach.Hello, prefix []byte, writeTimeout time.Duration) *stream {
	st := &stream{c: c, hello: h, prefix: prefix, writeTimeout: writeTimeout,
		in: make(chan []byte), sizes: make(chan attach.Size, 1), out: make(chan outMsg, outQueue)}
	// Not ended by ctx itself: whoever ends ctx stops the stream with the
	// reason the page is told (runPage: an expiry, a shutdown).
	st.ctx, st.end = context.WithCancelCause(context.WithoutCancel(ctx))
	st.attachCtx, st.endAttach = context.WithCancel(context.WithoutCancel(ctx))
	return st
}

// detach ends the attach for a reason the page is told with code. The
// reason is set before the attach's context ends, and the stream stays
// open until the attach finishes it: so the attach sees the server end
// it, not a terminal gone (which server.on_hangup = "quit" would make a
// quit), and its Finish, whenever it runs, closes the page with the
// reason. Only the first call counts.
func (st *stream) detach(code websocket.StatusCode, reason string) {
	st.verdict.CompareAndSwap(nil, &ending{code: code, reason: reason})
	st.endAttach()
}

// finalEnding is how Finish closes the page: the verdict, else normally.
func (st *stream) finalEnding() *ending {
	if e := st.verdict.Load(); e != nil {
		return e
	}
	return &ending{code: websocket.StatusNormalClosure}
}

// endedAsMeant: the stream ended as the page or the server meant it to
// (the page closed itself, or the server's verdict), so the attach's
// last writes failing is no failure.
func (st *stream) endedAsMeant() bool {
	e, ok := context.Cause(st.ctx).(*ending)
	return ok && (e.code == websocket.StatusNormalClosure || e == st.verdict.Load())
}

func (st *stream) Hello() attach.Hello         { return st.hello }
func (st *stream) Resizes() <-chan attach.Size { return st.sizes }

// stop ends the stream: the writer closes the socket with code and
// reason. Only the first call counts.
func (st *stream) stop(code websocket.StatusCode, reason string) {
	st.end(&ending{code: code, reason: reason})
}

// Read returns the page's input as terminal bytes; io.EOF once the page
// went or the stream ended.
func (st *stream) Read(p []byte) (int, error) {
	if len(st.rest) == 0 {
		select {
		case b, ok := <-st.in:
			if !ok {
				return 0, io.EOF
			}
			st.rest = b
		case <-st.ctx.Done():
			return 0, io.EOF
		}
	}
	n := copy(p, st.rest)
	st.rest = st.rest[n:]
	return n, nil
}

// Write queues one frame. While the queue is full it waits, at most
// writeTimeout (A11): a page that takes nothing that long is cut off.
func (st *stream) Write(p []byte) (int, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.finished {
		return 0, errFinished
	}
	if err := st.queue(outMsg{typ: websocket.MessageBinary, data: append([]byte(nil), p...)}); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (st *stream) queue(m outMsg) error {
	select {
	case st.out <- m:
		return nil
	case <-st.ctx.Done():
		return context.Cause(st.ctx)
	default:
	}
	t := time.NewTimer(st.writeTimeout)
	defer t.Stop()
	select {
	case st.out <- m:
		return nil
	case <-st.ctx.Done():
		return context.Cause(st.ctx)
	case <-st.attachCtx.Done():
		// The server ended the attach (detach): a page that takes
		// nothing is closed with the verdict, not waited for.
		e := st.finalEnding()
		st.stop(e.code, e.reason)
		return context.Cause(st.ctx)
	case <-t.C:
		st.stop(closeStalled, "the page took no output for "+st.writeTimeout.String())
		return fmt.Errorf("write to %s: %w (it is cut off: it may open again)", st.hello.Who, context.Cause(st.ctx))
	}
}

// notify queues a notification for the page, unless the queue is full:
// a page that far behind learns the state from its next frame.
func (st *stream) notify(text string) {
	b, _ := json.Marshal(serverMsg{T: "notify", Text: text}) // Marshal of a flat struct of strings cannot fail.
	select {
	case st.out <- outMsg{typ: websocket.MessageText, data: b}:
	default:
	}
}

// Finish tells the page how the attachment ended, then closes it.
func (st *stream) Finish(e attach.Exit) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.finished {
		return errFinished
	}
	st.finished, st.ended = true, e
	b, _ := json.Marshal(serverMsg{T: "exit", Detached: e.Detached, Code: e.Code, Summary: e.Summary}) // as in notify
	err := st.queue(outMsg{typ: websocket.MessageText, data: b})
	end := st.finalEnding()
	st.stop(end.code, end.reason)
	if err != nil && st.endedAsMeant() {
		return nil // the page closed itself, or the server closes it: there is no one to tell
	}
	return err
}

func (st *stream) exit() attach.Exit {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.ended
}

// write sends the queue to the page until the stream ends, then what a
// normal end left queued, then closes the socket with the ending's code.
func (st *stream) write() {
	for {
		select {
		case m := <-st.out:
			if !st.send(m) {
				return
			}
		case <-st.ctx.Done():
			e, _ := context.Cause(st.ctx).(*ending)
			if e == nil {
				e = &ending{code: websocket.StatusGoingAway, reason: "the server stopped"}
			}
			if e.code == websocket.StatusNormalClosure {
				st.drain()
			}
			_ = st.c.Close(e.code, e.reason) // Best effort: a page that went is closed enough.
			return
		}
	}
}

func (st *stream) drain() {
	for {
		select {
		case m := <-st.out:
			if !st.send(m) {
				return
			}
		default:
			return
		}
	}
}

// send writes one message within writeTimeout; false once it failed,
// when the stream is ended and the socket closed.
func (st *stream) send(m outMsg) bool {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(st.ctx), st.writeTimeout)
	defer cancel()
	if err := st.c.Write(ctx, m.typ, m.data); err != nil {
		st.stop(closeStalled, "a write failed")
		_ = st.c.CloseNow() // Best effort: the write failed, the socket is gone either way.
		return false
	}
	return true
}

// read turns the page's messages into input and sizes until the socket
// closes or a message is refused. The reads are on ctx, which outlives
// the stream: cancelling a read closes the socket without its code.
func (st *stream) read(ctx context.Context) {
	defer close(st.in)
	defer close(st.sizes)
	for {
		typ, b, err := st.c.Read(ctx)
		if err != nil {
			st.stop(websocket.StatusNormalClosure, "")
			return
		}
		m, err := decode(b)
		if err == nil && (typ != websocket.MessageText || m.T == kindHello) {
			err = errors.New("a hello or a binary message after the hello")
		}
		if err != nil {
			st.stop(closeBadMsg, cut(err.Error(), 100))
			return
		}
		if m.T == kindResize {
			attach.OfferSize(st.sizes, attach.Size{Width: m.Cols, Height: m.Rows})
			continue
		}
		if b := input(m, st.prefix); len(b) > 0 {
			select {
			case st.in <- b:
			case <-st.ctx.Done():
				return
			}
		}
	}
}

// ping asks the page to answer every interval: a page that went without
// closing (a phone that lost its network) stops answering and is closed.
func (st *stream) ping(interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-st.ctx.Done():
			return
		case <-t.C:
		}
		// Not on st.ctx: a write cancelled midway closes the socket
		// without the ending's code.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(st.ctx), interval)
		err := st.c.Ping(ctx)
		cancel()
		if err != nil && st.ctx.Err() == nil {
			st.stop(closeStalled, "the page stopped answering pings")
			return
		}
	}
}
