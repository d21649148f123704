// Package asciicast reads and writes asciicast v2 recordings: a JSON header
// line, then one JSON array per event, `[seconds, "o", text]`.
//
// It owns the file format only; what is recorded, and when, is the
// caller's. Text must be valid UTF-8 (sandmux records the collector's
// settled text), so a recording replays byte for byte what was shown.
package asciicast

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
)

// Header is the first line of a recording.
type Header struct {
	Version   int               `json:"version"`
	Width     int               `json:"width"`
	Height    int               `json:"height"`
	Timestamp int64             `json:"timestamp,omitempty"`
	Command   string            `json:"command,omitempty"`
	Title     string            `json:"title,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
	// IdleTimeLimit, when positive, is the longest pause a player should
	// show, in seconds.
	IdleTimeLimit float64 `json:"idle_time_limit,omitempty"`
}

// Event is one recorded event.
type Event struct {
	Time float64 // seconds since the start
	Kind string  // "o" output, "i" input, "r" resize, "m" marker
	Data string
}

// Writer appends events to a recording. It is safe for concurrent use.
type Writer struct {
	mu    sync.Mutex
	w     *bufio.Writer
	start time.Time
	err   error
	buf   []byte
}

// NewWriter writes h (Version defaults to 2) to w and returns a Writer whose
// event times count from start.
func NewWriter(w io.Writer, h Header, start time.Time) (*Writer, error) {
	if h.Version == 0 {
		h.Version = 2
	}
	line, err := json.Marshal(h)
	if err != nil {
		return nil, fmt.Errorf("encode asciicast header: %w", err)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(line)
	if err := bw.WriteByte('\n'); err != nil {
		return nil, fmt.Errorf("write asciicast header: %w", err)
	}
	return &Writer{w: bw, start: start}, nil
}

// Output records text as output at the current time; it implements the
// session package's Sink. A write error is kept and returned by Close.
func (w *Writer) Output(text string) { w.WriteEvent(time.Since(w.start), "o", text) }

// WriteEvent records one event at offset d from the start.
func (w *Writer) WriteEvent(d time.Duration, kind, data string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return
	}
	b := w.buf[:0]
	b = append(b, '[')
	b = strconv.AppendFloat(b, d.Seconds(), 'f', 6, 64)
	b = append(b, ", "...)
	b = appendJSONString(b, kind)
	b = append(b, ", "...)
	b = appendJSONString(b, data)
	b = append(b, "]\n"...)
	w.buf = b
	if _, err := w.w.Write(b); err != nil {
		w.err = fmt.Errorf("write asciicast event: %w", err)
	}
}

// Flush writes buffered events to the underlying writer.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if err := w.w.Flush(); err != nil {
		w.err = fmt.Errorf("write asciicast: %w", err)
	}
	return w.err
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string. It is written by hand
// because encoding/json escapes HTML characters and allocates per call; here
// only what JSON requires is escaped, and invalid UTF-8 (never expected) is
// replaced so the file stays valid JSON.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
