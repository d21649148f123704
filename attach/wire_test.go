package attach

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestFramesRoundTrip(t *testing.T) {
	var b []byte
	b = appendFrame(b, frameInput, []byte("hi\x1b[A"))
	b = appendFrame(b, frameResize, resizePayload(Size{Width: 120, Height: 40}))
	b = appendFrame(b, frameOutput, nil)
	b = appendFrame(b, frameExit, exitPayload(Exit{Detached: true, Code: -2, Summary: "web: exited 0\n"}))
	fr := &frameReader{r: bytes.NewReader(b)}
	want := []frameType{frameInput, frameResize, frameOutput, frameExit}
	for i, w := range want {
		typ, p, err := fr.next()
		if err != nil || typ != w {
			t.Fatalf("frame %d: %q, %v; want %q", i, byte(typ), err, byte(w))
		}
		switch typ {
		case frameInput:
			if string(p) != "hi\x1b[A" {
				t.Errorf("input %q", p)
			}
		case frameResize:
			if sz, err := decodeResize(p); err != nil || sz != (Size{120, 40}) {
				t.Errorf("resize %v, %v", sz, err)
			}
		case frameExit:
			if e, err := decodeExit(p); err != nil || e != (Exit{Detached: true, Code: -2, Summary: "web: exited 0\n"}) {
				t.Errorf("exit %+v, %v", e, err)
			}
		}
	}
	if _, _, err := fr.next(); err != io.EOF {
		t.Errorf("after the last frame: %v, want io.EOF", err)
	}
}

func TestFramesRefused(t *testing.T) {
	huge := []byte{'o', 0, 0x10, 0, 1} // MaxPayload + 1
	if _, _, err := (&frameReader{r: bytes.NewReader(huge)}).next(); !errors.Is(err, errFrame) {
		t.Errorf("a payload over MaxPayload: %v", err)
	}
	cut := appendFrame(nil, frameOutput, []byte("abcdef"))[:8]
	if _, _, err := (&frameReader{r: bytes.NewReader(cut)}).next(); err != io.ErrUnexpectedEOF {
		t.Errorf("a frame cut short: %v, want io.ErrUnexpectedEOF", err)
	}
	for _, p := range [][]byte{{0, 1, 0}, resizePayload(Size{0, 5}), resizePayload(Size{maxDim + 1, 5})} {
		if _, err := decodeResize(p); !errors.Is(err, errFrame) {
			t.Errorf("resize % x accepted", p)
		}
	}
	for _, p := range [][]byte{{0, 0, 0, 0}, {2, 0, 0, 0, 0}} {
		if _, err := decodeExit(p); !errors.Is(err, errFrame) {
			t.Errorf("exit % x accepted", p)
		}
	}
	long := exitPayload(Exit{Summary: strings.Repeat("x", MaxPayload)})
	if len(long) != MaxPayload {
		t.Errorf("an overlong summary makes a payload of %d bytes, want it cut to %d", len(long), MaxPayload)
	}
}

// FuzzFrames: any bytes decode into frames that encode back to exactly
// the bytes they came from, with payloads in bounds, and resize and exit
// payloads that decode encode back the same; nothing panics.
func FuzzFrames(f *testing.F) {
	seed := appendFrame(nil, frameInput, []byte("ls\r"))
	seed = appendFrame(seed, frameResize, resizePayload(Size{80, 24}))
	seed = appendFrame(seed, frameExit, exitPayload(Exit{Code: 3, Summary: "done"}))
	for _, s := range [][]byte{seed, {}, {'o'}, {'o', 0, 0, 0, 5, 'a'}, {'x', 0xff, 0xff, 0xff, 0xff}, {'r', 0, 0, 0, 4, 0, 0, 0, 0}} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fr := &frameReader{r: bytes.NewReader(data)}
		var again []byte
		for {
			typ, p, err := fr.next()
			if err != nil {
				break
			}
			if len(p) > MaxPayload {
				t.Fatalf("payload of %d bytes", len(p))
			}
			again = appendFrame(again, typ, p)
			if sz, err := decodeResize(p); err == nil && !bytes.Equal(resizePayload(sz), p) {
				t.Fatalf("resize % x decodes to %v, which encodes to % x", p, sz, resizePayload(sz))
			}
			if e, err := decodeExit(p); err == nil && !bytes.Equal(exitPayload(e), p) {
				t.Fatalf("exit % x decodes to %+v, which encodes differently", p, e)
			}
		}
		if !bytes.HasPrefix(data, again) {
			t.Fatalf("frames re-encode to % x, not a prefix of the input % x", again, data)
		}
	})
}
