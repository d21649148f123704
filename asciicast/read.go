package asciicast

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Event kinds that asciicast v2 defines. A reader passes other kinds on
// as they are; players skip what they do not know.
const (
	KindOutput = "o" // text the terminal was sent
	KindInput  = "i" // keys the user typed
	KindResize = "r" // the terminal's new size, "COLSxROWS"
	KindMarker = "m" // a marker, with a label (maybe empty)
)

// MaxLine bounds one line of a recording, so that a file that is not a
// recording (or one damaged into a single endless line) fails with an
// error instead of filling memory.
const MaxLine = 64 << 20

// Size returns the size an "r" event gives; ok is false for another kind
// of event or a size that is not "COLSxROWS" with both from 1 to 9999.
func (e Event) Size() (cols, rows int, ok bool) {
	if e.Kind != KindResize {
		return 0, 0, false
	}
	c, r, found := strings.Cut(e.Data, "x")
	cols, err1 := strconv.Atoi(c)
	rows, err2 := strconv.Atoi(r)
	if !found || err1 != nil || err2 != nil || cols < 1 || rows < 1 || cols > 9999 || rows > 9999 {
		return 0, 0, false
	}
	return cols, rows, true
}

// Decoder reads a recording one event at a time, so a player holds one
// line in memory however long the recording is.
type Decoder struct {
	// Header is the recording's header, read by NewDecoder.
	Header Header
	r      *bufio.Reader
	line   int
	max    int // MaxLine, but for tests
	buf    []byte
	err    error // sticky: once a line fails, every Next returns it
}

// NewDecoder reads and checks the header of the recording r.
func NewDecoder(r io.Reader) (*Decoder, error) { return newDecoder(r, MaxLine) }

func newDecoder(r io.Reader, maxLine int) (*Decoder, error) {
	d := &Decoder{r: bufio.NewReaderSize(r, 64<<10), max: maxLine}
	line, err := d.readLine()
	if err == io.EOF && len(bytes.TrimSpace(line)) == 0 {
		return nil, errors.New("read asciicast: the file is empty (no header line)")
	}
	if err != nil && err != io.EOF {
		return nil, err
	}
	if err := json.Unmarshal(line, &d.Header); err != nil {
		return nil, fmt.Errorf("read asciicast header (line 1): %w (is it an asciicast v2 recording?)", err)
	}
	h := d.Header
	if h.Version != 2 {
		return nil, fmt.Errorf("read asciicast: version %d, want 2 (asciinema convert turns other versions into v2)", h.Version)
	}
	if h.Width < 1 || h.Height < 1 || h.Width > 9999 || h.Height > 9999 {
		return nil, fmt.Errorf("read asciicast header: size %dx%d, want width and height from 1 to 9999", h.Width, h.Height)
	}
	return d, nil
}

// Next returns the next event, or io.EOF after the last. Blank lines are
// skipped. An event's time is seconds from the start, never negative;
// times need not grow (a player shows an event that goes back at once).
func (d *Decoder) Next() (Event, error) {
	for d.err == nil {
		line, err := d.readLine()
		if len(bytes.TrimSpace(line)) == 0 {
			if err != nil {
				d.err = err
			}
			continue
		}
		e, perr := parseEvent(line)
		if perr != nil {
			d.err = fmt.Errorf("read asciicast line %d: %w", d.line, perr)
			break
		}
		if err != nil && err != io.EOF {
			d.err = err // the next call reports it; this line was whole
		}
		return e, nil
	}
	return Event{}, d.err
}

// readLine reads one line (its newline included) of at most d.max
// bytes. The last line may lack its newline: it comes with io.EOF.
func (d *Decoder) readLine() ([]byte, error) {
	d.line++
	d.buf = d.buf[:0]
	for {
		chunk, err := d.r.ReadSlice('\n')
		if len(d.buf)+len(chunk) > d.max {
			return nil, fmt.Errorf("read asciicast line %d: longer than %d bytes (is it an asciicast v2 recording?)", d.line, d.max)
		}
		d.buf = append(d.buf, chunk...)
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF:
			return d.buf, io.EOF
		case err != nil:
			return d.buf, fmt.Errorf("read asciicast line %d: %w", d.line, err)
		}
		return d.buf, nil
	}
}

func parseEvent(line []byte) (Event, error) {
	var raw []json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil {
		return Event{}, fmt.Errorf("not an event [time, kind, data]: %w", err)
	}
	if len(raw) != 3 {
		return Event{}, fmt.Errorf("an event has 3 elements [time, kind, data], this one %d", len(raw))
	}
	var e Event
	if err := json.Unmarshal(raw[0], &e.Time); err != nil || e.Time < 0 {
		return Event{}, fmt.Errorf("time %.40s: want seconds from the start, a number of at least 0", raw[0])
	}
	if err := json.Unmarshal(raw[1], &e.Kind); err != nil || e.Kind == "" {
		return Event{}, fmt.Errorf("kind %.40s: want a string such as \"o\"", raw[1])
	}
	if err := json.Unmarshal(raw[2], &e.Data); err != nil {
		return Event{}, fmt.Errorf("data %.40s: want a string", raw[2])
	}
	return e, nil
}

// Read parses a whole recording. Players should use a Decoder instead,
// which holds one event at a time.
func Read(r io.Reader) (Header, []Event, error) {
	d, err := NewDecoder(r)
	if err != nil {
		return Header{}, nil, err
	}
	var events []Event
	for {
		e, err := d.Next()
		if err == io.EOF {
			return d.Header, events, nil
		}
		if err != nil {
			return d.Header, events, err
		}
		events = append(events, e)
	}
}

// maxGap bounds one pause so it fits a time.Duration.
const maxGap = 1e9 * time.Second

// Gap is how long a player pauses between events at times prev and next
// (seconds from the start): the gap, capped at idleLimit seconds when that
// is positive, divided by speed. Speed 0 means no pauses at all, and so
// does time going back.
func Gap(prev, next, idleLimit, speed float64) time.Duration {
	gap := next - prev
	if speed <= 0 || !(gap > 0) {
		return 0
	}
	if idleLimit > 0 {
		gap = min(gap, idleLimit)
	}
	s := gap / speed
	if s >= maxGap.Seconds() {
		return maxGap
	}
	return time.Duration(s * float64(time.Second))
}
