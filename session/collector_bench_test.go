package session

import (
	"bytes"
	"testing"
	"time"
	"unicode/utf8"
)

// benchInputs are 1 MiB streams shaped like terminal output: plain ASCII
// with escape sequences, the same mixed with CJK and emoji, and the mixed
// stream with an invalid sequence every few dozen bytes (a binary file
// cat'ed to the terminal, a program writing Latin-1).
var benchInputs = func() []struct {
	name string
	data []byte
} {
	const size = 1 << 20
	fill := func(parts ...string) []byte {
		var b bytes.Buffer
		for i := 0; b.Len() < size; i++ {
			b.WriteString(parts[i%len(parts)])
		}
		return b.Bytes()[:size]
	}
	ascii := fill("total 48\r\n", "drwxr-xr-x  5 user staff  160 Jan  1 12:00 ", "\x1b[1;34msrc\x1b[0m\r\n",
		"-rw-r--r--  1 user staff 1234 Jan  1 12:00 main.go\r\n", "$ go test ./...\r\nok  \tgithub.com/x/y\t0.123s\r\n")
	mixed := fill("日本語のテキスト ", "emoji 😀🎉👍🏽 ", "\x1b[32m✓\x1b[0m passed ", "中文字符 и кириллица ", "plain ascii words here\r\n")
	invalid := fill("日本語\xe2\x82 ", "abc\xff\xfe def ", "\xed\xa0\x80 surrogate ", "\xf0\x9f\x98 cut emoji 😀 ", "latin-1 caf\xe9\r\n", "\xc0\xaf overlong ")
	return []struct {
		name string
		data []byte
	}{{"ascii", ascii}, {"mixed", mixed}, {"invalid", invalid}}
}()

// BenchmarkCollector measures the whole path a PTY's output takes: a
// producer goroutine pushing 32 KiB reads into a 256 KiB collector, and the
// benchmark goroutine collecting windows, as a session's consumer does.
func BenchmarkCollector(b *testing.B) {
	for _, in := range benchInputs {
		b.Run(in.name, func(b *testing.B) { benchCollector(b, in.data, 0) })
	}
	// With a real window the collector must not stall a fast producer: a
	// full window ends early instead of waiting out maxWait.
	b.Run("ascii-window2ms", func(b *testing.B) { benchCollector(b, benchInputs[0].data, 2*time.Millisecond) })
}

func benchCollector(b *testing.B, input []byte, maxWait time.Duration) {
	const chunk, capacity = 32 << 10, 256 << 10
	b.SetBytes(int64(len(input)))
	b.ReportAllocs()
	c := NewCollector(capacity)
	ctx := b.Context()
	pushed := make(chan error, 1)
	b.ResetTimer()
	go func() {
		for range b.N {
			for off := 0; off < len(input); off += chunk {
				if err := c.Push(ctx, input[off:min(off+chunk, len(input))]); err != nil {
					pushed <- err
					return
				}
			}
		}
		c.Close()
		pushed <- nil
	}()
	total := 0
	for {
		text, closed, err := c.Collect(ctx, maxWait)
		if err != nil {
			b.Fatalf("Collect: %v", err)
		}
		total += len(text)
		if closed {
			break
		}
	}
	b.StopTimer()
	if err := <-pushed; err != nil {
		b.Fatalf("Push: %v", err)
	}
	if total < b.N*len(input)/2 {
		b.Fatalf("collected %d bytes of text from %d pushed", total, b.N*len(input))
	}
}

// BenchmarkUTF8Valid is the ceiling for valid input: validating the same
// bytes once, with no queue, no copies and no replacement. On the invalid
// input it stops at the first error, so it bounds nothing there; see
// BenchmarkToValidUTF8.
func BenchmarkUTF8Valid(b *testing.B) {
	for _, in := range benchInputs {
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(in.data)))
			for b.Loop() {
				utf8.Valid(in.data)
			}
		})
	}
}

// BenchmarkToValidUTF8 is the standard library's nearest whole-input
// repair (one U+FFFD per invalid run, so not O2), as a yardstick for the
// invalid input.
func BenchmarkToValidUTF8(b *testing.B) {
	in := benchInputs[2]
	b.Run(in.name, func(b *testing.B) {
		b.SetBytes(int64(len(in.data)))
		b.ReportAllocs()
		for b.Loop() {
			bytes.ToValidUTF8(in.data, []byte("\uFFFD"))
		}
	})
}
