package termsafe

import (
	"fmt"
	"io"
)

// Fprintf is fmt.Fprintf for a terminal: the format is sandmux's own and is
// written as it is; every operand is formatted as fmt would, then escaped.
// An error is escaped as a Message (it may span lines and quote names), a
// %q operand is left its quoting, anything else is escaped as a String:
// a name printed inside a line cannot break the line.
//
// Commands that print text from outside sandmux print through Fprintf and
// Fprintln rather than fmt, so no operand can be forgotten.
func Fprintf(w io.Writer, format string, args ...any) (int, error) {
	return fmt.Fprintf(w, format, operands(args)...)
}

// Fprintln is fmt.Fprintln with each operand escaped as Fprintf does.
func Fprintln(w io.Writer, args ...any) (int, error) {
	return fmt.Fprintln(w, operands(args)...)
}

func operands(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		switch a.(type) {
		case int, int64, uint64, float64, bool:
			out[i] = a // Nothing fmt makes of these needs escaping.
		default:
			out[i] = operand{a}
		}
	}
	return out
}

// operand formats its value with the verb, flags, width and precision it
// was given, then escapes the result.
type operand struct{ v any }

func (o operand) Format(st fmt.State, verb rune) {
	s := fmt.Sprintf(fmt.FormatString(st, verb), o.v)
	_, isErr := o.v.(error)
	switch {
	case verb == 'q', isErr:
		s = Message(s)
	default:
		s = String(s)
	}
	_, _ = io.WriteString(st, s) // st is fmt's buffer: writing to it cannot fail.
}

// NewWriter returns a writer that escapes everything written through it as
// Message does, keeping tabs too: for a package that prints on its own,
// such as flag, whose errors name the argument it refused (a file name,
// when a shell expanded a pattern). Each Write is escaped on its own, so
// give it whole messages: a character split between two writes shows as
// its bytes.
func NewWriter(w io.Writer) io.Writer { return writer{w} }

type writer struct{ w io.Writer }

func (w writer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(w.w, escape(string(p), keepNL|keepTab|keepBS)); err != nil {
		return 0, err
	}
	return len(p), nil
}
