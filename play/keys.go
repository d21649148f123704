package play

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/sandmux/sandmux/tty"
)

// playKey is what a key does to a playing cast.
type playKey uint8

const (
	keyPause playKey = iota + 1 // space: pause or resume
	keyStep                     // .: while paused, play one event
	keyQuit                     // q, ctrl+c: stop
)

// playKeyOf maps the keys play knows, as a terminal sends them plainly or
// under the kitty keyboard protocol (a cast may turn that on), to what
// they do.
var playKeyOf = map[rune]playKey{' ': keyPause, '.': keyStep, 'q': keyQuit, 'Q': keyQuit, 0x03: keyQuit}

// keyParser finds play's keys in what the terminal sends. The cast's
// output is written to the terminal as it is, so the terminal's answers
// to the queries in it (cursor reports, device attributes, colours), its
// mouse reports and pastes arrive here too, and their bytes must not act
// as keys: escape sequences are skipped whole.
type keyParser struct {
	state  keyState
	seq    []byte // a CSI sequence's parameters, bounded by maxSeq
	skip   int    // raw bytes of an X10 mouse report still to skip
	pasted string // while in a bracketed paste: what of its end came
}

type keyState uint8

const (
	ground   keyState = iota
	escape            // after ESC
	csi               // ESC [ ...
	ss3               // ESC O: one more byte
	str               // OSC, DCS, APC, PM, SOS: until BEL or ST
	strEsc            // ESC inside a string: ST if '\' follows
	inPaste           // ESC [ 200 ~ ... ESC [ 201 ~
	maxSeq   = 64     // a longer CSI is no sequence a terminal sends
	pasteEnd = "\x1b[201~"
)

// feed parses one read's bytes and calls emit for each key. An ESC that
// ends a read is the Esc key, not the start of a sequence: a terminal
// sends a sequence in one write.
func (k *keyParser) feed(b []byte, emit func(playKey)) {
	for _, c := range b {
		k.byte(c, emit)
	}
	if k.state == escape {
		k.state = ground
	}
}

func (k *keyParser) byte(c byte, emit func(playKey)) {
	switch k.state {
	case ground:
		if k.skip > 0 {
			k.skip--
		} else if c == 0x1b {
			k.state = escape
		} else if key, ok := playKeyOf[rune(c)]; ok {
			emit(key)
		}
	case escape:
		k.state = ground
		switch c {
		case '[':
			k.state, k.seq = csi, k.seq[:0]
		case ']', 'P', '_', '^', 'X':
			k.state = str
		case 'O':
			k.state = ss3
		case 0x1b:
			k.state = escape
		}
	case ss3:
		k.state = ground
	case csi:
		k.csiByte(c, emit)
	case str:
		switch c {
		case 0x07:
			k.state = ground
		case 0x1b:
			k.state = strEsc
		}
	case strEsc:
		k.state = str
		if c == '\\' {
			k.state = ground
		}
	case inPaste:
		k.pasteByte(c)
	}
}

func (k *keyParser) csiByte(c byte, emit func(playKey)) {
	switch {
	case c >= 0x40 && c <= 0x7e:
		k.state = ground
		k.csiEnd(c, emit)
	case c >= 0x20 && c <= 0x3f && len(k.seq) < maxSeq:
		k.seq = append(k.seq, c)
	default:
		// Not a sequence a terminal sends: the byte is read as a key
		// again, so ctrl+c still quits.
		k.state = ground
		k.byte(c, emit)
	}
}

// csiEnd acts on a whole CSI sequence: the start of a paste, an X10 mouse
// report's raw bytes, a key under the kitty protocol.
func (k *keyParser) csiEnd(final byte, emit func(playKey)) {
	params := string(k.seq)
	switch {
	case final == '~' && params == "200":
		k.state, k.pasted = inPaste, ""
	case final == 'M' && params == "":
		k.skip = 3
	case final == 'u':
		code, mods, _ := strings.Cut(params, ";")
		n, err := strconv.Atoi(code)
		if err != nil {
			return
		}
		if n == 'c' && strings.HasPrefix(mods, "5") {
			n = 0x03 // ctrl+c
		} else if mods != "" && mods != "1" && !strings.HasPrefix(mods, "1:") {
			return // a modified key is none of play's
		}
		if key, ok := playKeyOf[rune(n)]; ok {
			emit(key)
		}
	}
}

// pasteByte follows a paste until its end: nothing pasted is a key.
func (k *keyParser) pasteByte(c byte) {
	switch {
	case c == pasteEnd[len(k.pasted)]:
		k.pasted += string(c)
	case c == pasteEnd[0]:
		k.pasted = pasteEnd[:1]
	default:
		k.pasted = ""
	}
	if k.pasted == pasteEnd {
		k.state, k.pasted = ground, ""
	}
}

// keyReader reads play's keys from the terminal, on its pump's
// goroutine, until stopped.
type keyReader struct {
	keys chan playKey
	done chan struct{}
	pump *tty.Pump
	once sync.Once
}

func readKeys(in *os.File) (*keyReader, error) {
	k := &keyReader{keys: make(chan playKey, 16), done: make(chan struct{})}
	var p keyParser
	emit := func(key playKey) {
		select {
		case k.keys <- key:
		case <-k.done:
		}
	}
	k.pump = tty.StartPump(in, 256, func(b []byte) error { p.feed(b, emit); return nil }, nil)
	if !k.pump.Cancelable() {
		k.pump.Stop()
		return nil, errors.New("the terminal's reads cannot be stopped")
	}
	return k, nil
}

// stop stops reading and waits for the reader; it is idempotent.
func (k *keyReader) stop() {
	k.once.Do(func() {
		close(k.done)
		k.pump.Stop()
	})
}
