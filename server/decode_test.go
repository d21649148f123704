package server

import (
	"bytes"
	"context"
	"image/color"
	"io"
	"reflect"
	"testing"
	"testing/synctest"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"

	"github.com/sandmux/sandmux/ui"
)

// decodeAll runs input through a guard and the decoder, as a client's
// input goes, and returns the messages.
func decodeAll(t testing.TB, readOnly bool, chunks ...[]byte) []tea.Msg {
	t.Helper()
	var msgs []tea.Msg
	var dec inputDecoder
	dec.decode(guardAll(t, readOnly, chunks...), func(m tea.Msg) { msgs = append(msgs, m) })
	return msgs
}

// bubbleTea is what Bubble Tea's own reader makes of input (the scanner a
// tea.Program reads with, to the end of the input, then translated as
// the program does, keeping the kinds the model takes).
func bubbleTea(t testing.TB, input []byte) []tea.Msg {
	t.Helper()
	events := make(chan uv.Event)
	r := uv.NewTerminalReader(bytes.NewReader(input), "xterm-256color")
	var err error
	go func() {
		defer close(events)
		err = r.StreamEvents(context.Background(), events)
	}()
	var msgs []tea.Msg
	for ev := range events {
		if m := translate(ev); m != nil {
			msgs = append(msgs, m)
		}
	}
	if err != nil {
		t.Fatalf("stream events: %v", err)
	}
	return msgs
}

func TestDecodeEachKind(t *testing.T) {
	black := color.RGBA{A: 0xff}
	white := color.RGBA{R: 0xff, G: 0xff, B: 0xff, A: 0xff}
	for _, c := range []struct {
		name, in string
		want     []tea.Msg
	}{
		{"text", "a", []tea.Msg{tea.KeyPressMsg{Code: 'a', Text: "a"}}},
		{"wide text", "é", []tea.Msg{tea.KeyPressMsg{Code: 'é', Text: "é"}}},
		{"ctrl", "\x03", []tea.Msg{tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}}},
		{"arrow", "\x1b[A", []tea.Msg{tea.KeyPressMsg{Code: tea.KeyUp}}},
		{"ctrl+arrow", "\x1b[1;5C", []tea.Msg{tea.KeyPressMsg{Code: tea.KeyRight, Mod: tea.ModCtrl}}},
		{"alt+x", "\x1bx", []tea.Msg{tea.KeyPressMsg{Code: 'x', Mod: tea.ModAlt}}},
		{"kitty", "\x1b[97;5u", []tea.Msg{tea.KeyPressMsg{Code: 'a', Mod: tea.ModCtrl}}},
		{"ctrl+F3 or a cursor report: the key", "\x1b[1;5R", []tea.Msg{tea.KeyPressMsg{Code: tea.KeyF3, Mod: tea.ModCtrl}}},
		{"paste", "\x1b[200~hi\r\x1b[A\tthere\x1b[201~", []tea.Msg{tea.PasteMsg{Content: "hi\r\x1b[A\tthere"}}},
		{"paste around keys", "a\x1b[200~b\x1b[201~c", []tea.Msg{
			tea.KeyPressMsg{Code: 'a', Text: "a"}, tea.PasteMsg{Content: "b"}, tea.KeyPressMsg{Code: 'c', Text: "c"}}},
		{"empty paste", "\x1b[200~\x1b[201~", []tea.Msg{tea.PasteMsg{}}},
		{"click", "\x1b[<0;3;4M", []tea.Msg{tea.MouseClickMsg{X: 2, Y: 3, Button: tea.MouseLeft}}},
		{"release", "\x1b[<0;3;4m", []tea.Msg{tea.MouseReleaseMsg{X: 2, Y: 3, Button: tea.MouseLeft}}},
		{"wheel", "\x1b[<65;1;1M", []tea.Msg{tea.MouseWheelMsg{Button: tea.MouseWheelDown}}},
		{"motion", "\x1b[<32;5;6M", []tea.Msg{tea.MouseMotionMsg{X: 4, Y: 5, Button: tea.MouseLeft}}},
		{"x10 mouse", "\x1b[M !!", []tea.Msg{tea.MouseClickMsg{Button: tea.MouseLeft}}},
		{"focus", "\x1b[I", []tea.Msg{tea.FocusMsg{}}},
		{"blur", "\x1b[O", []tea.Msg{tea.BlurMsg{}}},
		{"foreground", "\x1b]10;rgb:ffff/ffff/ffff\x1b\\", []tea.Msg{tea.ForegroundColorMsg{Color: white}}},
		{"background", "\x1b]11;rgb:0000/0000/0000\a", []tea.Msg{tea.BackgroundColorMsg{Color: black}}},
		{"cursor colour", "\x1b]12;rgb:ffff/ffff/ffff\x1b\\", []tea.Msg{tea.CursorColorMsg{Color: white}}},
		{"dark scheme", "\x1b[?997;1n", []tea.Msg{ui.ColorSchemeMsg{}}},
		{"light scheme", "\x1b[?997;2n", []tea.Msg{ui.ColorSchemeMsg{}}},
		{"unknown sequence, then a key", "\x1b[99xq", []tea.Msg{tea.KeyPressMsg{Code: 'q', Text: "q"}}},
		{"a query's answer the model takes not", "\x1b[?62;22cq", []tea.Msg{tea.KeyPressMsg{Code: 'q', Text: "q"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := decodeAll(t, false, []byte(c.in))
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("%q: got %#v, want %#v", c.in, got, c.want)
			}
		})
	}
}

// The decoder delivers what Bubble Tea delivered for the same input.
func TestDecodeAsBubbleTea(t *testing.T) {
	for _, in := range []string{
		"hello, wörld 日本 🎉\r",
		"\x1b[A\x1b[B\x1b[1;2D\x1bOP\x1b[15;3~\x1b[Z\x7f\x00\t",
		"\x1b[97;5u\x1b[27u\x1b[13;2u",
		"\x1b[200~line one\r\nline\ttwo \x1b[1;5A é\x1b[201~after",
		"\x1b[<0;10;5M\x1b[<0;10;5m\x1b[<64;1;1M\x1b[<35;2;2M\x1b[M#!!",
		"\x1b[I\x1b[O\x1b]11;rgb:1234/5678/9abc\x1b\\\x1b[?997;1n",
		"\x1b[99x\x1b[?1;2c",
	} {
		out := guardAll(t, false, []byte(in))
		var got []tea.Msg
		var dec inputDecoder
		dec.decode(out, func(m tea.Msg) { got = append(got, m) })
		if want := bubbleTea(t, out); !reflect.DeepEqual(got, want) {
			t.Errorf("%q:\n got %#v\nwant %#v", in, got, want)
		}
	}
}

// A paste split across reads arrives whole; a read-only client's arrives
// empty, as before (the guard drops its content).
func TestDecodePasteAcrossReads(t *testing.T) {
	in := [][]byte{[]byte("\x1b[200~first "), []byte("second"), []byte("\x1b[201~")}
	want := []tea.Msg{tea.PasteMsg{Content: "first second"}}
	var got []tea.Msg
	var dec inputDecoder
	for _, c := range in {
		dec.decode(c, func(m tea.Msg) { got = append(got, m) })
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v, want %#v", got, want)
	}
	if got := decodeAll(t, true, in...); !reflect.DeepEqual(got, []tea.Msg{tea.PasteMsg{}}) {
		t.Errorf("read-only: got %#v, want an empty paste", got)
	}
}

// Close makes the guard's Read return even while the stream's Read never
// does: the goroutine that decodes a client's input is waited for at the
// end of its attachment.
func TestGuardReadReturnsAtClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &stuckReader{release: make(chan struct{})}
		g := newInputGuard(r, false)
		done := make(chan error)
		go func() {
			_, err := g.Read(make([]byte, 16))
			done <- err
		}()
		synctest.Wait()
		g.Close(nil)
		if err := <-done; err != io.EOF {
			t.Errorf("Read after Close: %v, want io.EOF", err)
		}
		close(r.release) // the stream's Read returns at last
		<-g.ended
	})
}

// stuckReader's Read returns only once release is closed.
type stuckReader struct{ release chan struct{} }

func (s *stuckReader) Read([]byte) (int, error) {
	<-s.release
	return 0, io.EOF
}

// FuzzDecode runs any input through the guard and the decoder: no panic,
// and the paste the decoder gathers never over the guard's bound.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{"a\x1b[A", "\x1b[200~x\x1b[201~", "\x1b[<0;1;1M", "\x1b]11;rgb:0/0/0\a", "\x1b[200~\xff\x1b[1;5A"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var dec inputDecoder
		out := guardAll(t, false, in)
		dec.decode(out, func(tea.Msg) {})
		if len(dec.paste) > maxPaste {
			t.Fatalf("a paste of %d bytes gathered, over %d", len(dec.paste), maxPaste)
		}
	})
}

// A stream that hands its input over on a channel (attach.Conn) is
// received from directly, with no reader goroutine of the guard's own
// calling its Read: its chunks pass as Read's would, and its end is the
// guard's.
func TestGuardReceivesFromAChunkSource(t *testing.T) {
	src := chanStream{ch: make(chan []byte, 2)}
	src.ch <- []byte("a\x1b[A")
	src.ch <- []byte("\x1b[200~b\x1b[201~")
	close(src.ch)
	g := newInputGuard(src, false)
	defer g.Close(nil)
	out, err := io.ReadAll(g)
	if err != nil {
		t.Fatalf("read the guard: %v", err)
	}
	if want := "a\x1b[A\x1b[200~b\x1b[201~"; string(out) != want {
		t.Errorf("got %q, want %q", out, want)
	}
}

// chanStream is a chunkSource whose Read must not be called.
type chanStream struct{ ch chan []byte }

func (c chanStream) Read([]byte) (int, error) {
	panic("Read called: the guard receives from Chunks")
}

func (c chanStream) Chunks() <-chan []byte { return c.ch }
