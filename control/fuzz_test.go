package control

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzDecodeRequest: any line is either refused with a short error or
// decoded into a request of a known op with the fields it needs, which
// encodes and decodes again to the same request.
func FuzzDecodeRequest(f *testing.F) {
	for _, s := range []string{
		`{"v":1,"op":"ls"}`, `{"v":1,"op":"send","session":"1","data":"aGk="}`,
		`{"v":1,"op":"wait","session":"1","state":"exited","timeout":"2s"}`,
		`{"v":1,"op":"run","argv":["a"],"name":"\u001b]0;x\u0007"}`, `{"v":"1"}`, `{"v":1,"op":"ls","v":2}`,
		`{"v":1,"op":"keys","session":"1","keys":[]}`, `{}`, `null`, `{"v":1e0,"op":"ls"}`,
		`{"v":1,"op":"attach","width":80,"height":24,"term":"xterm","read_only":true}`, `{"v":1,"op":"attach","width":0,"height":-1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		req, err := DecodeRequest(line)
		if err != nil {
			if n := len(err.Error()); n > 600 {
				t.Fatalf("error of %d bytes", n)
			}
			return
		}
		sp, ok := ops[req.Op]
		if !ok || req.V != Version {
			t.Fatalf("accepted %+v", req)
		}
		_ = sp
		var buf bytes.Buffer
		if err := Encode(&buf, req); err != nil {
			t.Fatal(err)
		}
		again, err := DecodeRequest(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
		if err != nil {
			// Encoding drops empty fields (omitempty), so a request whose
			// needed field was present but empty ("keys":[]) may not
			// survive; anything else must.
			if strings.Contains(err.Error(), "needs") {
				return
			}
			t.Fatalf("re-decode of %s: %v", buf.Bytes(), err)
		}
		a, _ := json.Marshal(req)
		b, _ := json.Marshal(again)
		if !bytes.Equal(a, b) {
			t.Fatalf("round trip changed %s into %s", a, b)
		}
	})
}

// FuzzUnescape: escaping any bytes the way `ctl send` documents, then
// unescaping, gives the bytes back.
func FuzzUnescape(f *testing.F) {
	for _, s := range []string{"", "hi\n", "\x1b[A", "\\", "\x00\xff", "日本"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var b strings.Builder
		for _, c := range data {
			switch {
			case c == '\\':
				b.WriteString(`\\`)
			case c < 0x20 || c >= 0x7f:
				b.WriteString(`\x`)
				b.WriteByte("0123456789abcdef"[c>>4])
				b.WriteByte("0123456789abcdef"[c&15])
			default:
				b.WriteByte(c)
			}
		}
		got, err := Unescape(b.String())
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("Unescape(%q) = %q, %v; want %q", b.String(), got, err, data)
		}
		_, _ = Unescape(string(data)) // never panics on raw input
	})
}
