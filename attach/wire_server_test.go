package attach

import (
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sandmux/sandmux/control"
	"github.com/sandmux/sandmux/endpoint"
)

// A client that vanishes: Read says io.EOF and Resizes closes.
func TestClientVanishes(t *testing.T) {
	path, fs := serve(t)
	c := rawAttach(t, path)
	a := fs.next(t)
	if _, err := c.Write(appendFrame(appendFrame(nil, frameInput, []byte("ab")), frameResize, resizePayload(Size{90, 20}))); err != nil {
		t.Fatal(err)
	}
	if got := readN(t, a, 2); string(got) != "ab" {
		t.Errorf("input %q", got)
	}
	if sz := <-a.Resizes(); sz != (Size{90, 20}) {
		t.Errorf("resize %v", sz)
	}
	_ = c.Close()
	if n, err := a.Read(make([]byte, 8)); err != io.EOF {
		t.Errorf("Read after the client went: %d, %v; want io.EOF", n, err)
	}
	waitClosed(t, a.Resizes())
	a.ret <- nil
}

// Chunks hands over each input frame's bytes, in order, and closes once
// the client went away: what Read returns, for a reader that receives.
func TestChunksAreTheInputFrames(t *testing.T) {
	path, fs := serve(t)
	c := rawAttach(t, path)
	a := fs.next(t)
	if _, err := c.Write(appendFrame(appendFrame(nil, frameInput, []byte("ab")), frameInput, []byte("\x1b[A"))); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ab", "\x1b[A"} {
		select {
		case got := <-a.Chunks():
			if string(got) != want {
				t.Errorf("chunk %q, want %q", got, want)
			}
		case <-time.After(failsafe):
			t.Fatalf("no chunk %q", want)
		}
	}
	_ = c.Close()
	select {
	case got, ok := <-a.Chunks():
		if ok {
			t.Errorf("a chunk %q after the client went", got)
		}
	case <-time.After(failsafe):
		t.Fatal("Chunks not closed after the client went")
	}
	a.ret <- nil
}

// Only the newest size waits for the server; input order is kept across
// resizes.
func TestNewestSizeWins(t *testing.T) {
	path, fs := serve(t)
	c := rawAttach(t, path)
	a := fs.next(t)
	var b []byte
	for w := 10; w <= 50; w += 10 {
		b = appendFrame(b, frameResize, resizePayload(Size{w, 5}))
		b = appendFrame(b, frameInput, []byte{byte('0' + w/10)})
	}
	if _, err := c.Write(b); err != nil {
		t.Fatal(err)
	}
	if got := readN(t, a, 5); string(got) != "12345" {
		t.Errorf("input %q", got)
	}
	if sz := <-a.Resizes(); sz != (Size{50, 5}) {
		t.Errorf("resize %v, want the newest, 50x5", sz)
	}
	_ = a.Finish(Exit{Detached: true})
	a.ret <- nil
}

// A client that sends what only a server sends is cut off.
func TestClientSendingServerFrames(t *testing.T) {
	path, fs := serve(t)
	c := rawAttach(t, path)
	a := fs.next(t)
	if _, err := c.Write(appendFrame(nil, frameOutput, []byte("x"))); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("Read after a bad frame: %v, want io.EOF", err)
	}
	a.ret <- nil
}

// A client that stops reading does not hold Write past the deadline; it
// is cut off and its stream ends.
func TestStalledClientCutOff(t *testing.T) {
	path, fs := serve(t)
	_ = rawAttach(t, path) // attaches, then never reads
	a := fs.next(t)
	const timeout = 200 * time.Millisecond
	a.writeTimeout = timeout // before any write; only writers read it
	chunk := make([]byte, 256<<10)
	var err error
	var took time.Duration
	for sent := 0; err == nil; sent += len(chunk) {
		if sent > 64<<20 {
			t.Fatal("64 MiB written to a client that reads nothing")
		}
		start := time.Now()
		_, err = a.Write(chunk)
		took = time.Since(start)
	}
	if !errors.Is(err, os.ErrDeadlineExceeded) || !strings.Contains(err.Error(), "cut off") {
		t.Errorf("Write to a stalled client: %v, want a deadline that says it is cut off", err)
	}
	if took > timeout+failsafe/2 {
		t.Errorf("the failing Write took %v, far past its %v deadline", took, timeout)
	}
	if _, err := a.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("Read after the cut: %v, want io.EOF", err)
	}
	waitClosed(t, a.Resizes())
	if _, err := a.Write([]byte("x")); err == nil {
		t.Error("Write after the cut succeeded")
	}
	a.ret <- nil
}

// A hello the server cannot use is refused with a reply, over the line
// protocol, and nothing is attached.
func TestHelloRefused(t *testing.T) {
	path, fs := serve(t)
	for _, req := range []control.Request{
		{Op: control.OpAttach, Width: 0, Height: 24},
		{Op: control.OpAttach, Width: 80, Height: 99999},
		{Op: control.OpAttach, Width: 80, Height: 24, Term: strings.Repeat("x", maxTermLen+1)},
		{Op: control.OpAttach, Width: 80, Height: 24, ColorTerm: "true color"},
		{Op: control.OpAttach, Width: 80, Height: 24, Cwd: "relative/dir"},
		{Op: control.OpAttach, Width: 80, Height: 24, Cwd: "/" + strings.Repeat("d", maxDirLen)},
	} {
		c, err := endpoint.Dial(path)
		if err != nil {
			t.Fatal(err)
		}
		cl := control.NewClient(c)
		_, err = cl.Call(t.Context(), req)
		_ = cl.Close()
		if err == nil || !strings.Contains(err.Error(), "attach") {
			t.Errorf("%+v: %v, want a refusal", req, err)
		}
	}
	select {
	case a := <-fs.attached:
		t.Errorf("a refused hello attached: %+v", a.Hello())
	default:
	}
}
