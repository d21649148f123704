package vt_test

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sandmux/sandmux/session/vt"
)

// A style-aware line: runs written as «style»text, trailing default blanks
// dropped. Compared cell for cell: text, palette and RGB colours, bold,
// faint, italic, underline (style and colour), blink, reverse,
// strikethrough, overline and conceal. Hyperlinks are not: tmux 3.3's
// capture-pane does not show them (TestHyperlinks covers them).
type tcell struct {
	text               string // the cell's character: a cluster as written
	fg, bg, ul         string
	bold, faint, ital  bool
	under              int // 0 none, 1 single, 2 double, 3 curly, 4 dotted, 5 dashed
	blink, rev, strike bool
	over, hidden       bool
}

func (c tcell) style() string {
	// Colours as the program wrote them: bold does not brighten (tmux
	// keeps bold and colour apart, and most terminals today draw them so).
	fg := c.fg
	var a string
	for _, f := range []struct {
		on bool
		s  string
	}{{c.bold, "b"}, {c.faint, "f"}, {c.ital, "i"}, {c.under > 0, "u" + strconv.Itoa(c.under)},
		{c.blink, "k"}, {c.rev, "r"}, {c.strike, "s"}, {c.over, "o"}, {c.hidden, "h"}} {
		if f.on {
			a += f.s
		}
	}
	if c.under > 0 && c.ul != "" && c.ul != "d" {
		a += "=" + c.ul
	}
	return fg + "/" + c.bg + "/" + a
}

func encodeRow(cells []tcell) string {
	end := len(cells)
	for end > 0 && cells[end-1].text == " " && cells[end-1].style() == "d/d/" {
		end--
	}
	var b strings.Builder
	last := ""
	for _, c := range cells[:end] {
		if st := c.style(); st != last {
			fmt.Fprintf(&b, "«%s»", st)
			last = st
		}
		b.WriteString(c.text)
	}
	return b.String()
}

func colorName(c vt.Color) string {
	if n, ok := c.Palette(); ok {
		return "p" + strconv.Itoa(int(n))
	}
	if r, g, b, ok := c.RGB(); ok {
		return fmt.Sprintf("#%02x%02x%02x", r, g, b)
	}
	return "d"
}

// styleLines encodes a Screen frame.
func styleLines(f *vt.Frame) []string {
	var out []string
	for y := 0; y < f.Rows; y++ {
		var cells []tcell
		for _, c := range f.Row(y) {
			if c.Flags&vt.FlagPlaceholder != 0 {
				continue
			}
			under := 0
			if c.Attrs&vt.AttrUnderline != 0 {
				under = 1 + int(c.Under)
			}
			cells = append(cells, tcell{text: c.String(), fg: colorName(c.FG), bg: colorName(c.BG), ul: colorName(c.UL),
				bold: c.Attrs&vt.AttrBold != 0, faint: c.Attrs&vt.AttrFaint != 0,
				ital: c.Attrs&vt.AttrItalic != 0, under: under,
				blink: c.Attrs&vt.AttrBlink != 0, rev: c.Attrs&vt.AttrReverse != 0,
				strike: c.Attrs&vt.AttrStrike != 0, over: c.Attrs&vt.AttrOverline != 0,
				hidden: c.Attrs&vt.AttrConceal != 0})
		}
		out = append(out, encodeRow(cells))
	}
	return trimLines(strings.Join(out, "\n"))
}

// decGraphics maps DEC special graphics, which capture-pane -e shows as
// letters between SO and SI.
var decGraphics = map[rune]rune{'j': '┘', 'k': '┐', 'l': '┌', 'm': '└', 'n': '┼', 'q': '─',
	't': '├', 'u': '┤', 'v': '┴', 'w': '┬', 'x': '│', 'a': '▒', '`': '◆', '~': '·'}

// tmuxStyles parses capture-pane -e output (SGR, SO/SI and text).
func tmuxStyles(s string, fix func(string) string) []string {
	var out []string
	// capture-pane -e carries the style from one line to the next.
	cur := tcell{fg: "d", bg: "d"}
	acs := false
	for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		var cells []tcell
		var text strings.Builder
		flush := func() {
			t := text.String()
			if fix != nil {
				t = fix(t)
			}
			for _, r := range t {
				if n := len(cells); n > 0 && joinsCell(cells[n-1].text, r) {
					cells[n-1].text += string(r)
					continue
				}
				c := cur
				c.text = string(r)
				cells = append(cells, c)
			}
			text.Reset()
		}
		for len(line) > 0 {
			switch {
			case strings.HasPrefix(line, "\x1b["):
				end := strings.IndexByte(line, 'm')
				flush()
				applySGR(&cur, line[2:end])
				line = line[end+1:]
				continue
			case line[0] == 0x0e || line[0] == 0x0f:
				flush()
				acs = line[0] == 0x0e
				line = line[1:]
				continue
			}
			r, n := utf8.DecodeRuneInString(line)
			if g, ok := decGraphics[r]; ok && acs {
				r = g
			}
			text.WriteRune(r)
			line = line[n:]
		}
		flush()
		out = append(out, encodeRow(cells))
	}
	return trimLines(strings.Join(out, "\n"))
}

// joinsCell reports whether r belongs in the cell of cluster prev, as
// tmux and sandmux store them: zero-width code points join the character
// before them, a pictograph joins after a ZWJ, two regional indicators
// make one flag.
func joinsCell(prev string, r rune) bool {
	last, _ := utf8.DecodeLastRuneInString(prev)
	first, _ := utf8.DecodeRuneInString(prev)
	regional := func(r rune) bool { return r >= 0x1f1e6 && r <= 0x1f1ff }
	switch {
	case prev == " ":
		return false
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf), r >= 0x1160 && r <= 0x11ff:
		return true
	case last == 0x200d:
		return r >= 0x1f000 || r >= 0x2600 && r <= 0x27bf
	case regional(r):
		return regional(first) && utf8.RuneCountInString(prev) == 1
	}
	return false
}

func applySGR(c *tcell, params string) {
	ps := strings.Split(params, ";")
	num := func(i int) int {
		if i >= len(ps) {
			return 0
		}
		n, _ := strconv.Atoi(strings.SplitN(ps[i], ":", 2)[0])
		return n
	}
	for i := 0; i < len(ps); i++ {
		if ps[i] == "5:3" { // tmux 3.3's capture-pane writes overline so
			c.over = true
			continue
		}
		switch n := num(i); {
		case n == 0:
			*c = tcell{fg: "d", bg: "d"}
		case n == 1:
			c.bold = true
		case n == 2:
			c.faint = true
		case n == 3:
			c.ital = true
		case n == 4:
			c.under = 1
			if k, ok := strings.CutPrefix(ps[i], "4:"); ok {
				c.under, _ = strconv.Atoi(k)
			}
		case n == 5 || n == 6:
			c.blink = true
		case n == 7:
			c.rev = true
		case n == 8:
			c.hidden = true
		case n == 9:
			c.strike = true
		case n == 21:
			c.under = 2
		case n == 22:
			c.bold, c.faint = false, false
		case n == 23:
			c.ital = false
		case n == 24:
			c.under = 0
		case n == 28:
			c.hidden = false
		case n == 29:
			c.strike = false
		case n == 53:
			c.over = true
		case n == 55:
			c.over = false
		case n == 59:
			c.ul = "d"
		case n == 25:
			c.blink = false
		case n == 27:
			c.rev = false
		case n >= 30 && n <= 37:
			c.fg = "p" + strconv.Itoa(n-30)
		case n >= 90 && n <= 97:
			c.fg = "p" + strconv.Itoa(n-90+8)
		case n >= 40 && n <= 47:
			c.bg = "p" + strconv.Itoa(n-40)
		case n >= 100 && n <= 107:
			c.bg = "p" + strconv.Itoa(n-100+8)
		case n == 39:
			c.fg = "d"
		case n == 49:
			c.bg = "d"
		case n == 38 || n == 48 || n == 58:
			var v string
			if num(i+1) == 5 {
				v = "p" + strconv.Itoa(num(i+2))
				i += 2
			} else if num(i+1) == 2 {
				v = fmt.Sprintf("#%02x%02x%02x", num(i+2), num(i+3), num(i+4))
				i += 4
			}
			switch n {
			case 38:
				c.fg = v
			case 48:
				c.bg = v
			default:
				c.ul = v
			}
		}
	}
}

// tmuxText turns capture-pane -e output into plain text: SGR removed, DEC
// line drawing between SO and SI mapped.
func tmuxText(s string) string {
	var b strings.Builder
	acs := false
	for len(s) > 0 {
		switch {
		case strings.HasPrefix(s, "\x1b["):
			s = s[strings.IndexByte(s, 'm')+1:]
			continue
		case s[0] == 0x0e || s[0] == 0x0f:
			acs = s[0] == 0x0e
			s = s[1:]
			continue
		}
		r, n := utf8.DecodeRuneInString(s)
		if g, ok := decGraphics[r]; ok && acs {
			r = g
		}
		b.WriteRune(r)
		s = s[n:]
	}
	return b.String()
}
