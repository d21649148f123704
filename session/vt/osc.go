package vt

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// maxTitle bounds the title a child can set, in bytes.
const maxTitle = 512

// osc handles a complete OSC string: titles, colour queries and
// notifications, progress and shell marks (marks.go) and hyperlinks (link.go).
// Clipboard writes are kept for the UI (clipboard.go). Everything else
// (clipboard reads, cwd, colour changes) is dropped; vt10x would log it
// or, for colour changes, bake new colours into cells.
func (f *filter) osc(data []byte) {
	cmd, rest, _ := bytes.Cut(data, []byte{';'})
	n, ok := atoi(cmd)
	if !ok {
		return
	}
	switch n {
	case 0, 2:
		f.setTitle(rest)
	case 8:
		f.setLink(rest)
	case 52:
		f.clipboard(rest)
	case 9:
		// iTerm2's notification, unless it is one of ConEmu's commands
		// ("9;N" or "9;N;…": 4 is its progress report; 9 the working
		// directory, which shells send at every prompt; the others set
		// tab titles, sleep or run macros): those are no notification.
		switch sub, args, _ := bytes.Cut(rest, []byte{';'}); {
		case string(sub) == "4":
			f.progress(args)
		case !conEmuCommand(sub):
			f.notify(string(rest))
		}
	case 133:
		f.shellMark(rest)
	case 777:
		if body, ok := bytes.CutPrefix(rest, []byte("notify;")); ok {
			title, text, _ := bytes.Cut(body, []byte{';'})
			f.notify(strings.TrimSpace(string(title) + ": " + string(text)))
		}
	case 4:
		for len(rest) > 0 {
			var idx, spec []byte
			idx, rest, _ = bytes.Cut(rest, []byte{';'})
			spec, rest, _ = bytes.Cut(rest, []byte{';'})
			i, ok := atoi(idx)
			if ok && i < 256 && string(spec) == "?" {
				f.colorReply(4, i, paletteRGB(uint8(i)))
			}
		}
	case 10, 11, 12:
		// OSC 10;?;? asks for 10 and 11: each further field is the next.
		for len(rest) > 0 && n <= 12 {
			var spec []byte
			spec, rest, _ = bytes.Cut(rest, []byte{';'})
			switch {
			case string(spec) == "?":
				f.colorReply(n, -1, [...][3]uint8{f.theme.FG, f.theme.BG, f.theme.Cursor}[n-10])
			case n == 12 && colorSpec(spec):
				f.st.cursorColor = string(spec)
			}
			n++
		}
	case 112:
		f.st.cursorColor = ""
	}
}

func (f *filter) setTitle(b []byte) {
	t := make([]byte, 0, min(len(b), maxTitle))
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		b = b[size:]
		if runeWidth(r) == 0 && (r < 0x20 || r >= 0x7f && r < 0xa0) {
			continue // controls never reach the UI
		}
		if len(t)+size > maxTitle {
			break
		}
		t = utf8.AppendRune(t, r)
	}
	f.st.title = string(t)
}

// colorSpec reports whether spec is a colour as X11 names them (a name,
// #rgb… or rgb:r/g/b), short and of letters, digits, '#', ':' and '/'
// only, so it can be handed to the outer terminal as it is.
func colorSpec(spec []byte) bool {
	if len(spec) == 0 || len(spec) > 32 {
		return false
	}
	for _, c := range spec {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '#' || c == ':' || c == '/') {
			return false
		}
	}
	return true
}

// colorReply answers a colour query with the terminator of the query.
func (f *filter) colorReply(cmd, idx int, c [3]uint8) {
	b := append(f.scratch[:0], "\x1b]"...)
	b = appendInt(b, cmd)
	if idx >= 0 {
		b = append(b, ';')
		b = appendInt(b, idx)
	}
	b = append(b, ";rgb:"...)
	for i, v := range c {
		if i > 0 {
			b = append(b, '/')
		}
		const hex = "0123456789abcdef"
		h := []byte{hex[v>>4], hex[v&15]}
		b = append(b, h[0], h[1], h[0], h[1])
	}
	if f.strBEL {
		b = append(b, '\a')
	} else {
		b = append(b, "\x1b\\"...)
	}
	f.scratch = b
	f.out.reply(b)
}

// paletteRGB is xterm's default 256-colour palette.
func paletteRGB(i uint8) [3]uint8 {
	base := [16][3]uint8{
		{0, 0, 0}, {205, 0, 0}, {0, 205, 0}, {205, 205, 0},
		{0, 0, 238}, {205, 0, 205}, {0, 205, 205}, {229, 229, 229},
		{127, 127, 127}, {255, 0, 0}, {0, 255, 0}, {255, 255, 0},
		{92, 92, 255}, {255, 0, 255}, {0, 255, 255}, {255, 255, 255},
	}
	switch {
	case i < 16:
		return base[i]
	case i < 232:
		i -= 16
		level := func(v uint8) uint8 {
			if v == 0 {
				return 0
			}
			return 55 + v*40
		}
		return [3]uint8{level(i / 36), level(i / 6 % 6), level(i % 6)}
	default:
		v := 8 + (i-232)*10
		return [3]uint8{v, v, v}
	}
}

// atoi parses a short non-negative decimal.
func atoi(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 6 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// notify records a notification (OSC 9, OSC 777 notify): a mark, and its
// text kept for the UI to pass on.
func (f *filter) notify(text string) {
	f.mark(Mark{Kind: MarkNotify, Text: text})
	f.notice = &text
}
