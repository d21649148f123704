package ui

import (
	"testing"

	"charm.land/lipgloss/v2"
)

// The chrome was drawn with lipgloss before pen and box: they must draw it
// byte for byte as lipgloss did, so that no title, status line or overlay
// changes on any terminal.
func TestPenDrawsAsLipglossDid(t *testing.T) {
	texts := []string{"", "x", "pane 1: sh", " a\tb ", "wide 日本語 ✓", "\x1b[1mbold\x1b[m inside", "two\nlines", "ends\n"}
	pens := []struct {
		fg, bg int
		bold   bool
	}{{252, 237, false}, {16, 45, true}, {214, 237, true}, {244, -1, false}, {-1, -1, true}, {-1, -1, false}}
	for _, c := range pens {
		want := lipgloss.NewStyle()
		if c.fg >= 0 {
			want = want.Foreground(lipgloss.Color(itoa(c.fg)))
		}
		if c.bg >= 0 {
			want = want.Background(lipgloss.Color(itoa(c.bg)))
		}
		if c.bold {
			want = want.Bold(true)
		}
		p := newPen(c.fg, c.bg, c.bold)
		for _, s := range texts {
			if s == "two\nlines" || s == "ends\n" {
				if c.fg >= 0 || c.bg >= 0 || c.bold {
					continue // lipgloss pads a block's lines to its widest; chrome styles single lines
				}
			}
			if got, w := p.Render(s), want.Render(s); got != w {
				t.Errorf("pen %+v on %q:\n got %q\nwant %q", c, s, got, w)
			}
		}
	}
	border := lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(lipgloss.Color("45")).Padding(0, 1)
	for _, s := range []string{"", "one line", "Close pane 1 (sh)? (y/n)\n\nsecond, longer line here", "日本語\n\tx", "\x1b[1mhead\x1b[m\n  row"} {
		if got, w := box(s), border.Render(s); got != w {
			t.Errorf("box of %q:\n got %q\nwant %q", s, got, w)
		}
	}
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
