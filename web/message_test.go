package web

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestKeyBytes(t *testing.T) {
	for _, tt := range []struct {
		msg  message
		want string
	}{
		{message{T: kindKey, Key: "Enter"}, "\r"},
		{message{T: kindKey, Key: "Enter", Shift: true}, "\x1b[13;2u"},
		{message{T: kindKey, Key: "Tab"}, "\t"},
		{message{T: kindKey, Key: "Tab", Shift: true}, "\x1b[Z"},
		{message{T: kindKey, Key: "Escape"}, "\x1b"},
		{message{T: kindKey, Key: "Backspace"}, "\x7f"},
		{message{T: kindKey, Key: "ArrowUp"}, "\x1b[A"},
		{message{T: kindKey, Key: "ArrowLeft", Ctrl: true}, "\x1b[1;5D"},
		{message{T: kindKey, Key: "PageDown"}, "\x1b[6~"},
		{message{T: kindKey, Key: "Delete", Shift: true}, "\x1b[3;2~"},
		{message{T: kindKey, Key: "F1"}, "\x1bOP"},
		{message{T: kindKey, Key: "F5"}, "\x1b[15~"},
		{message{T: kindKey, Key: "b", Ctrl: true}, "\x02"},
		{message{T: kindKey, Key: "B", Ctrl: true, Shift: true}, "\x02"},
		{message{T: kindKey, Key: " ", Ctrl: true}, "\x00"},
		{message{T: kindKey, Key: "[", Ctrl: true}, "\x1b"},
		{message{T: kindKey, Key: "x", Alt: true}, "\x1bx"},
		{message{T: kindKey, Key: "é"}, "é"},
		{message{T: kindKey, Key: "c", Meta: true}, ""},
		{message{T: kindKey, Key: "Shift", Shift: true}, ""},
		{message{T: kindKey, Key: "é", Ctrl: true}, ""},
		{message{T: kindText, Data: "echo hi"}, "echo hi"},
		{message{T: kindPaste, Data: "a\x1b[201~b"}, "\x1b[200~ab\x1b[201~"},
		{message{T: kindPrefix}, "\x02"},
		{message{T: kindResize, Cols: 80, Rows: 24}, ""},
	} {
		if got := string(input(tt.msg, []byte{2})); got != tt.want {
			t.Errorf("%+v: got %q, want %q", tt.msg, got, tt.want)
		}
	}
}

func TestDecodeRefuses(t *testing.T) {
	for _, in := range []string{
		``, `[]`, `{}`, `{"t":"nope"}`, `{"t":"key"}`, `{"t":"key","key":"` + strings.Repeat("a", 33) + `"}`,
		`{"t":"hello","cols":0,"rows":24}`, `{"t":"resize","cols":80,"rows":65536}`, `{"t":"resize","cols":-1,"rows":2}`,
		`{"t":"text","data":"a","extra":1}`, `{"t":"text"} {"t":"text"}`,
		`{"t":"hello","cols":80,"rows":24,"token":"x"}`,
	} {
		if m, err := decode([]byte(in)); err == nil {
			t.Errorf("%q decoded as %+v, want an error", in, m)
		}
	}
	if _, err := decode(bytes.Repeat([]byte(" "), maxMessage+1)); err == nil {
		t.Error("a message past maxMessage decoded")
	}
}

// FuzzDecode: any bytes decode to a message in bounds or to a short
// error that quotes nothing of the input beyond a short excerpt, and
// what a message types is bounded by the message.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"t":"hello","cols":80,"rows":24}`, `{"t":"key","key":"ArrowUp","ctrl":true}`,
		`{"t":"paste","data":"x\u001b[201~"}`, `{"t":"text","data":"é"}`, `{"t":"prefix"}`, `{"t":"resize","cols":1,"rows":65535}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := decode(b)
		if err != nil {
			if len(err.Error()) > 200 || !utf8.ValidString(err.Error()) {
				t.Fatalf("error of %d bytes: %q", len(err.Error()), err)
			}
			return
		}
		switch m.T {
		case kindHello, kindResize:
			if m.Cols < 1 || m.Rows < 1 || m.Cols > maxSide || m.Rows > maxSide {
				t.Fatalf("size out of bounds: %+v", m)
			}
		}
		out := input(m, []byte{2})
		if len(out) > len(b)+16 {
			t.Fatalf("%d bytes of input typed %d bytes", len(b), len(out))
		}
		if m.T == kindPaste && bytes.Count(out, []byte("\x1b[201~")) != 1 {
			t.Fatalf("a paste ends its bracket early: %q", out)
		}
	})
}
