package record

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sandmux/sandmux/session/vt"
)

// BenchmarkWrite is vt's BenchmarkWrite input (plain lines and colour)
// written to a screen without a tap and with a ring tapped.
//
// Measured (2 shared cores, busy): see the report in the commit message.
func BenchmarkWrite(b *testing.B) {
	var plain, colour strings.Builder
	for i := 0; plain.Len() < 64<<10; i++ {
		fmt.Fprintf(&plain, "line %d: the quick brown fox jumps over the lazy dog\r\n", i)
	}
	for i := 0; colour.Len() < 64<<10; i++ {
		fmt.Fprintf(&colour, "\x1b[3%dmINFO\x1b[0m \x1b[1;38;5;%dmcomponent\x1b[0m: message %d\x1b[m\r\n", i%8, i%256, i)
	}
	for _, in := range []struct{ name, text string }{{"plain", plain.String()}, {"colour", colour.String()}} {
		for _, tapped := range []bool{false, true} {
			name := in.name + "/none"
			if tapped {
				name = in.name + "/ring"
			}
			b.Run(name, func(b *testing.B) {
				s := vt.New(80, 24)
				defer s.Close()
				if tapped {
					r := NewRing(RingOptions{}, NewBudget(64<<20))
					r.Attach(s)
					defer r.Close()
				}
				b.SetBytes(int64(len(in.text)))
				for b.Loop() {
					s.Write(in.text)
				}
			})
		}
	}
}
