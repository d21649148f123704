package control

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

func TestDecodeRequest(t *testing.T) {
	good := []struct {
		line string
		want Request
	}{
		{`{"v":1,"op":"ls"}`, Request{V: 1, Op: OpLs}},
		{`{"v":1,"op":"run","argv":["sh","-c","x"],"name":"w"}`, Request{V: 1, Op: OpRun, Argv: []string{"sh", "-c", "x"}, Name: "w"}},
		{`{"v":1,"op":"send","session":"3","data":"aGkK","paste":true}`, Request{V: 1, Op: OpSend, Session: "3", Data: []byte("hi\n"), Paste: true}},
		{`{"v":1,"op":"wait","session":"web","state":"exited","timeout":"1m30s"}`, Request{V: 1, Op: OpWait, Session: "web", State: "exited", Timeout: Duration(90 * time.Second)}},
		{`{"v":1,"op":"quit","kill":true}`, Request{V: 1, Op: OpQuit, Kill: true}},
		{`{"v":1,"op":"attach","width":80,"height":24,"read_only":true,"term":"xterm-256color","colorterm":"truecolor"}`, Request{V: 1, Op: OpAttach, Width: 80, Height: 24, ReadOnly: true, Term: "xterm-256color", ColorTerm: "truecolor"}},
		{`{"v":1,"op":"attach","width":80,"height":24,"cwd":"/home/a"}`, Request{V: 1, Op: OpAttach, Width: 80, Height: 24, Cwd: "/home/a"}},
	}
	for _, g := range good {
		got, err := DecodeRequest([]byte(g.line))
		if err != nil {
			t.Errorf("%s: %v", g.line, err)
			continue
		}
		gb, _ := json.Marshal(got)
		wb, _ := json.Marshal(g.want)
		if !bytes.Equal(gb, wb) {
			t.Errorf("%s: got %s, want %s", g.line, gb, wb)
		}
	}
	bad := []struct{ line, says string }{
		{`not json`, "not a JSON object"},
		{`[1]`, "not a JSON object"},
		{`{"op":"ls"}`, "no protocol version"},
		{`{"v":2,"op":"ls"}`, "version 2 is not spoken"},
		{`{"v":1}`, `no "op"`},
		{`{"v":1,"op":"frobnicate"}`, `unknown op "frobnicate"`},
		{`{"v":1,"op":"ls","session":"3"}`, `op ls takes no field "session"`},
		{`{"v":1,"op":"kill"}`, `op kill needs "session"`},
		{`{"v":1,"op":"attach","width":80}`, `op attach needs "height"`},
		{`{"v":1,"op":"attach","width":80,"height":24,"session":"1"}`, `op attach takes no field "session"`},
		{`{"v":1,"op":"attach","width":"80","height":24}`, "op attach"},
		{`{"v":1,"op":"kill","session":null}`, `op kill needs "session"`},
		{`{"v":1,"op":"send","session":"1","data":"!!"}`, "op send"},
		{`{"v":1,"op":"wait","session":"1","state":"exited","timeout":"-1s"}`, "duration"},
		{`{"v":1,"op":"wait","session":"1","state":"exited","timeout":5}`, "duration"},
		{`{"v":1,"op":"ls","` + strings.Repeat("k", 500) + `":1}`, "…"},
	}
	for _, b := range bad {
		_, err := DecodeRequest([]byte(b.line))
		if err == nil || !strings.Contains(err.Error(), b.says) {
			t.Errorf("%.60s: error %v, want one saying %q", b.line, err, b.says)
		}
		if err != nil && len(err.Error()) > 400 {
			t.Errorf("%.60s: error of %d bytes quotes too much", b.line, len(err.Error()))
		}
	}
}

// Every operation in the table decodes with exactly its needed fields.
func TestEveryOpDecodes(t *testing.T) {
	sample := map[string]any{"session": "1", "argv": []string{"true"}, "sandbox": "s", "data": []byte("x"), "keys": []string{"enter"}, "state": "exited", "width": 80, "height": 24, "action": "start", "file": "/tmp/x.cast", "token": "0a1b2c3d"}
	for _, op := range Ops() {
		msg := map[string]any{"v": Version, "op": op}
		for _, f := range ops[op].needs {
			msg[f] = sample[f]
		}
		line, _ := json.Marshal(msg)
		if _, err := DecodeRequest(line); err != nil {
			t.Errorf("%s: %v", line, err)
		}
	}
}

func TestReaderLines(t *testing.T) {
	long := strings.Repeat("x", MaxLine+10)
	r := NewReader(strings.NewReader("a\n" + long + "\nb\nlast"))
	var got []string
	for {
		line, err := r.Line()
		if errors.Is(err, io.EOF) {
			break
		}
		if errors.Is(err, ErrTooLong) {
			got = append(got, "TOO LONG")
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(line))
	}
	if want := "a|TOO LONG|b|last"; strings.Join(got, "|") != want {
		t.Errorf("lines = %q, want %q", strings.Join(got, "|"), want)
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	req := Request{V: Version, Op: OpSend, Session: "2", Data: []byte{0, 0x1b, 0xff}}
	if err := Encode(&buf, req); err != nil {
		t.Fatal(err)
	}
	line, err := NewReader(&buf).Line()
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeRequest(line)
	if err != nil || !bytes.Equal(got.Data, req.Data) || got.Session != "2" {
		t.Errorf("round trip = %+v, %v", got, err)
	}
}

func TestUnescape(t *testing.T) {
	good := map[string]string{
		`hi`:            "hi",
		`ls\n`:          "ls\n",
		`a\r\tb`:        "a\r\tb",
		`\e[A`:          "\x1b[A",
		`\x03\x7F\\`:    "\x03\x7f\\",
		`日本\n`:          "日本\n",
		`\x1b\x5b\x41`:  "\x1b[A",
		`back\\slash\n`: "back\\slash\n",
	}
	for in, want := range good {
		if got, err := Unescape(in); err != nil || string(got) != want {
			t.Errorf("Unescape(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{`\`, `a\q`, `\x`, `\x1`, `\xzz`} {
		if _, err := Unescape(in); err == nil {
			t.Errorf("Unescape(%q) accepted", in)
		}
	}
}
