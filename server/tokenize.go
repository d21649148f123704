package server

// The guard's tokenizer: a byte at a time, it tells whole characters and
// finished sequences from what must wait for more and what is dropped
// (the rules are input.go's).

import "unicode/utf8"

// tokenizer is the guard's parse of the input.
type tokenizer struct {
	st       guardState
	seq      []byte // the sequence or character being gathered
	need     int    // inUTF8: continuation bytes still to come; inX10: bytes
	params   int    // inCSI: separators seen
	digits   int    // inCSI: digits of the current parameter
	first    int    // inCSI: the first parameter's value
	marked   bool   // inCSI: a private marker (< = > ?) opened it
	inter    bool   // inCSI: an intermediate byte came
	osc      bool   // inString: an OSC, which BEL also ends
	strEsc   bool   // inString: the last byte was ESC
	intro    byte   // inString: the byte after ESC, while nothing followed it
	paste    bool   // inside a bracketed paste
	pasted   int    // bytes of the paste's current piece
	readOnly bool
	out      *[]byte
}

// holding reports bytes kept that more input could still complete and
// that a pause ends. Inside a paste nothing is timed: the decoder gathers
// a paste to its end marker, waiting on nothing in it, and a paste split
// by a slow link must come through whole.
func (t *tokenizer) holding() bool {
	if t.paste {
		return false
	}
	switch t.st {
	case inUTF8, inEsc, inCSI, inSS3, inX10:
		return true
	case inString:
		return t.intro != 0
	}
	return false
}

// expire ends what is held when no more input came: an ESC alone is the
// Escape key, ESC and one byte alt+key (the decoder's reading of ESC [,
// ESC ] and the like when nothing follows); a sequence or character cut
// short is dropped.
func (t *tokenizer) expire() {
	st, seq, intro := t.st, t.seq, t.intro
	if st == inString && intro == 0 || t.paste {
		return // a string being dropped, or a paste: only its end ends it
	}
	t.reset()
	t.intro = 0
	switch {
	case st == inString: // ESC ] typed, say: alt+]
		t.emit(altKeys[intro])
	case st == inEsc:
		t.emit(escapeKey)
	case st == inCSI && len(seq) == 2: // ESC [ typed: alt+[
		t.emit(altKeys['['])
	case st == inSS3 && len(seq) == 2: // ESC O: alt+shift+o
		t.emit(altKeys['O'])
	}
}

func (t *tokenizer) reset() {
	t.st, t.seq = inText, t.seq[:0]
	t.params, t.digits, t.first, t.marked, t.inter = 0, 0, 0, false, false
}

// feed takes one byte of input.
func (t *tokenizer) feed(b byte) {
	switch t.st {
	case inText:
		t.text(b)
	case inUTF8:
		t.utf8(b)
	case inEsc:
		t.afterEsc(b)
	case inCSI:
		t.csi(b)
	case inSS3:
		t.ss3(b)
	case inX10:
		t.seq = append(t.seq, b)
		if t.need--; t.need == 0 {
			t.finish(false)
		}
	case inString:
		t.str(b)
	case inJunk:
		if b < 0x20 || b > 0x7e {
			t.st = inText
			t.feed(b)
		} else if b >= 0x40 {
			t.st = inText // its final byte
		}
	}
}

func (t *tokenizer) text(b byte) {
	switch {
	case b == esc:
		t.st, t.seq = inEsc, append(t.seq[:0], b)
	case b < utf8.RuneSelf:
		t.emit(string(rune(b)))
	case b >= 0xc2 && b <= 0xf4:
		t.st, t.seq, t.need = inUTF8, append(t.seq[:0], b), 1
		if b >= 0xe0 {
			t.need++
		}
		if b >= 0xf0 {
			t.need++
		}
	}
	// Any other byte starts no character: dropped.
}

func (t *tokenizer) utf8(b byte) {
	lo, hi := byte(0x80), byte(0xbf)
	if len(t.seq) == 1 {
		// The second byte's range depends on the first (no overlong
		// forms, no surrogates, nothing past U+10FFFF).
		switch t.seq[0] {
		case 0xe0:
			lo = 0xa0
		case 0xed:
			hi = 0x9f
		case 0xf0:
			lo = 0x90
		case 0xf4:
			hi = 0x8f
		}
	}
	if b < lo || b > hi {
		t.reset()
		t.feed(b)
		return
	}
	t.seq = append(t.seq, b)
	if t.need--; t.need == 0 {
		s := string(t.seq)
		t.reset()
		t.emit(s)
	}
}

func (t *tokenizer) afterEsc(b byte) {
	switch b {
	case '[':
		t.st, t.seq = inCSI, append(t.seq, b)
	case 'O':
		t.st, t.seq = inSS3, append(t.seq, b)
	case ']', 'P', '_', '^', 'X':
		t.reset()
		t.st, t.osc, t.strEsc, t.intro = inString, b == ']', false, b
	default:
		t.reset()
		if !t.paste {
			// ESC ESC: the first is the Escape key. ESC and any other
			// byte: alt+key, or for a byte past ASCII the Escape key
			// and then the character.
			if b < utf8.RuneSelf && b != esc {
				t.emit(altKeys[b])
				return
			}
			t.emit(escapeKey)
		}
		// In a paste an ESC that starts no sequence is dropped: the
		// decoder would wait on it.
		t.feed(b)
	}
}

func (t *tokenizer) csi(b byte) {
	if len(t.seq) >= maxSeq {
		t.reset()
		t.st = inJunk
		t.feed(b)
		return
	}
	switch {
	case b >= 0x30 && b <= 0x3f && !t.inter:
		t.seq = append(t.seq, b)
		switch {
		case len(t.seq) == 3 && b >= '<':
			t.marked = true
		case b >= '0' && b <= '9':
			if t.digits++; t.digits > 9 {
				t.junk()
				return
			}
			if t.params == 0 {
				t.first = 10*t.first + int(b-'0')
			}
		case b == ';' || b == ':':
			if t.params++; t.params > 16 {
				t.junk()
				return
			}
			t.digits = 0
		}
	case b >= 0x20 && b <= 0x2f:
		t.seq, t.inter = append(t.seq, b), true
	case b >= 0x40 && b <= 0x7e:
		t.seq = append(t.seq, b)
		if b == 'M' && len(t.seq) == 3 {
			t.st, t.need = inX10, 3 // an X10 mouse report: three bytes follow
			return
		}
		t.finish(b == '~' && !t.marked && !t.inter)
	default:
		// Not part of a sequence (a control, ESC, a byte past ASCII): the
		// sequence is dropped and the byte read afresh.
		t.reset()
		t.feed(b)
	}
}

// junk drops a malformed CSI sequence and the rest of it.
func (t *tokenizer) junk() {
	t.reset()
	t.st = inJunk
}

func (t *tokenizer) ss3(b byte) {
	switch {
	case b >= '0' && b <= '9' && len(t.seq) < 5:
		t.seq = append(t.seq, b)
	case b >= 0x40 && b <= 0x7e:
		t.seq = append(t.seq, b)
		t.finish(false)
	default:
		t.reset()
		t.feed(b)
	}
}

func (t *tokenizer) str(b byte) {
	t.intro = 0
	switch {
	case t.strEsc:
		t.st = inText
		if b != '\\' {
			t.seq = t.seq[:0]
			t.feed(b) // ESC cancelled the string; b is read afresh
			return
		}
		t.endString()
	case b == esc:
		t.strEsc = true
	case b == 0x18 || b == 0x1a:
		t.st, t.seq = inText, t.seq[:0]
	case t.osc && b == 0x07:
		t.st = inText
		t.endString()
	case t.osc && len(t.seq) < maxOSC:
		t.seq = append(t.seq, b)
	}
}

// endString hands on an OSC string that answers the colour queries the
// server makes of a client's terminal (OSC 10, 11 and 12: its
// foreground, background and cursor colours), whole and within maxOSC
// bytes, in the ST form; any other string is dropped.
func (t *tokenizer) endString() {
	body := t.seq
	t.seq = t.seq[:0]
	if !t.osc || t.paste || len(body) >= maxOSC || len(body) < 4 {
		return
	}
	switch string(body[:3]) {
	case "10;", "11;", "12;":
		t.emit("\x1b]" + string(body) + "\x1b\\")
	}
}

// finish hands on the sequence gathered; tilde says it ended in ~ with
// no marker, so it may be a paste's start or end.
func (t *tokenizer) finish(tilde bool) {
	s := string(t.seq)
	first := t.first
	t.reset()
	switch {
	case tilde && first == 200:
		t.startPaste()
	case tilde && first == 201:
		t.endPaste()
	default:
		t.emit(s)
	}
}

func (t *tokenizer) startPaste() {
	if t.paste {
		return // the decoder ignores a start inside a paste
	}
	t.paste, t.pasted = true, 0
	*t.out = append(*t.out, pasteStart...)
}

func (t *tokenizer) endPaste() {
	if !t.paste {
		return // an end with no start is nothing
	}
	t.paste = false
	*t.out = append(*t.out, pasteEnd...)
}

// emit hands on a character or a finished sequence: as it is outside a
// paste; inside one, as part of the paste's current piece (a read-only
// client's is dropped), starting a new piece when this one is full.
func (t *tokenizer) emit(s string) {
	if !t.paste {
		*t.out = append(*t.out, s...)
		return
	}
	if t.readOnly {
		return
	}
	if t.pasted+len(s) > maxPaste {
		*t.out = append(*t.out, pasteRestart...)
		t.pasted = 0
	}
	*t.out = append(*t.out, s...)
	t.pasted += len(s)
}
