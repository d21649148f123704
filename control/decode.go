package control

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
)

var errDuration = errors.New(`a duration is a string such as "30s" or "1m30s", not negative`)

// ErrTooLong means a line went past MaxLine.
var ErrTooLong = fmt.Errorf("message longer than %d bytes", MaxLine)

// spec is what one operation accepts: the fields it needs and the ones it
// may have. Every field not listed is refused.
type spec struct {
	needs, allows []string
}

// ops is the table of operations, the one place that says which request
// fields each takes.
var ops = map[Op]spec{
	OpLs:       {},
	OpRun:      {needs: []string{"argv"}, allows: []string{"name"}},
	OpStart:    {needs: []string{"sandbox"}},
	OpClose:    {needs: []string{"session"}},
	OpKill:     {needs: []string{"session"}},
	OpRestart:  {needs: []string{"session"}},
	OpSend:     {needs: []string{"session", "data"}, allows: []string{"paste"}},
	OpKeys:     {needs: []string{"session", "keys"}},
	OpScreen:   {needs: []string{"session"}, allows: []string{"ansi", "scrollback"}},
	OpWait:     {needs: []string{"session"}, allows: []string{"state", "phase", "timeout"}},
	OpStatus:   {needs: []string{"session", "state"}, allows: []string{"reason", "ttl"}},
	OpEvents:   {},
	OpQuit:     {allows: []string{"kill"}},
	OpAttach:   {needs: []string{"width", "height"}, allows: []string{"read_only", "term", "colorterm", "cwd", "tty"}},
	OpRecord:   {needs: []string{"action"}, allows: []string{"session", "view", "client", "file", "idle_limit", "label"}},
	OpSaveLast: {needs: []string{"session", "file"}, allows: []string{"duration"}},
	OpProfile:  {needs: []string{"file"}, allows: []string{"profile", "duration"}},

	OpTokenNew:    {allows: []string{"name", "read_only", "ttl"}},
	OpTokenLs:     {},
	OpTokenRevoke: {needs: []string{"token"}},
}

// Ops lists the operations, sorted.
func Ops() []Op {
	list := make([]Op, 0, len(ops))
	for op := range ops {
		list = append(list, op)
	}
	slices.Sort(list)
	return list
}

// DecodeRequest reads one request from a line (without its newline) and
// checks it: the version, a known operation, the fields it needs, and no
// field it does not take. Errors quote nothing longer than a short
// excerpt of the input.
func DecodeRequest(line []byte) (Request, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil {
		return Request{}, fmt.Errorf("not a JSON object: %w", shortJSONError(err))
	}
	if err := checkVersion(fields); err != nil {
		return Request{}, err
	}
	var op Op
	if raw, ok := fields["op"]; !ok || json.Unmarshal(raw, &op) != nil {
		return Request{}, fmt.Errorf(`no "op": say which operation (one of %s)`, opList())
	}
	sp, ok := ops[op]
	if !ok {
		return Request{}, fmt.Errorf("unknown op %q: use one of %s", excerpt(string(op)), opList())
	}
	if err := sp.check(op, fields); err != nil {
		return Request{}, err
	}
	var req Request
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return Request{}, fmt.Errorf("op %s: %w", op, shortJSONError(err))
	}
	return req, nil
}

func checkVersion(fields map[string]json.RawMessage) error {
	raw, ok := fields["v"]
	if !ok {
		return fmt.Errorf(`no protocol version: send "v": %d`, Version)
	}
	var v int
	if err := json.Unmarshal(raw, &v); err != nil || v != Version {
		return fmt.Errorf("protocol version %s is not spoken here: this sandmux speaks %d (use a sandmux of the same version)", excerpt(string(raw)), Version)
	}
	return nil
}

// check refuses a field op does not take and names the first it needs
// but lacks.
func (sp spec) check(op Op, fields map[string]json.RawMessage) error {
	names := make([]string, 0, len(fields))
	for name := range fields {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if name != "v" && name != "op" && !slices.Contains(sp.needs, name) && !slices.Contains(sp.allows, name) {
			return fmt.Errorf("op %s takes no field %q (it takes %s)", op, excerpt(name), sp.fieldList())
		}
	}
	for _, name := range sp.needs {
		if raw, ok := fields[name]; !ok || string(raw) == "null" {
			return fmt.Errorf("op %s needs %q", op, name)
		}
	}
	return nil
}

func (sp spec) fieldList() string {
	all := append(append([]string{}, sp.needs...), sp.allows...)
	if len(all) == 0 {
		return "none"
	}
	return strings.Join(all, ", ")
}

func opList() string {
	names := make([]string, 0, len(ops))
	for _, op := range Ops() {
		names = append(names, string(op))
	}
	return strings.Join(names, ", ")
}

// shortJSONError keeps a decoder's message but never lets it quote much of
// the input.
func shortJSONError(err error) error {
	return errors.New(excerpt(err.Error()))
}

// excerptLen bounds how much of the input an error quotes.
const excerptLen = 80

func excerpt(s string) string {
	if len(s) <= excerptLen {
		return s
	}
	cut := excerptLen
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut-- // never split a UTF-8 sequence
	}
	return s[:cut] + "…"
}

// Reader reads messages, one a line, refusing a line over MaxLine.
type Reader struct{ r *bufio.Reader }

// NewReader reads lines from r.
func NewReader(r io.Reader) *Reader { return &Reader{r: bufio.NewReaderSize(r, 64<<10)} }

// Line returns the next line without its newline. A final line without a
// newline counts; io.EOF comes after the last. A line over MaxLine is
// skipped to its end and reported as ErrTooLong, so the stream can go on.
func (r *Reader) Line() ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.r.ReadSlice('\n')
		if len(line)+len(chunk) > MaxLine {
			if skipErr := r.skipLine(err); skipErr != nil {
				return nil, skipErr
			}
			return nil, ErrTooLong
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			return line[:len(line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) > 0:
			return line, nil
		default:
			return nil, err
		}
	}
}

// Buffered returns a copy of the bytes already read past the last line
// returned: what follows it on the connection, for whoever reads on.
func (r *Reader) Buffered() []byte {
	b, _ := r.r.Peek(r.r.Buffered()) // Never fails: it peeks only what is buffered.
	return bytes.Clone(b)
}

// skipLine discards the rest of an overlong line; err is the last read's.
func (r *Reader) skipLine(err error) error {
	for errors.Is(err, bufio.ErrBufferFull) {
		_, err = r.r.ReadSlice('\n')
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// Encode writes v as one JSON line.
func Encode(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("send message: %w", err)
	}
	return nil
}

// decodeReply reads a reply line, refusing one of another version.
func decodeReply(line []byte, rep *Reply) error {
	if err := json.Unmarshal(line, rep); err != nil {
		return fmt.Errorf("the server sent an unreadable reply: %w", shortJSONError(err))
	}
	if rep.V != Version {
		return fmt.Errorf("the server speaks protocol version %d, this sandmux %d: use the same sandmux for both", rep.V, Version)
	}
	return nil
}
