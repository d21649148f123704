package vt

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// screenDiff describes how two screens differ (cells with links by URL,
// cursor, modes, title), "" when they do not.
func screenDiff(a, b *Screen) string {
	fa, fb := frame(a), frame(b)
	if fa.Cols != fb.Cols || fa.Rows != fb.Rows {
		return fmt.Sprintf("size %dx%d, want %dx%d", fb.Cols, fb.Rows, fa.Cols, fa.Rows)
	}
	for y := range fa.Rows {
		for x := range fa.Cols {
			ca, cb := fa.Cell(x, y), fb.Cell(x, y)
			la, lb := linkOf(fa, ca.Link), linkOf(fb, cb.Link)
			ca.Link, cb.Link = 0, 0
			if ca.Flags&FlagPlaceholder != 0 {
				// A wide character's right half shows nothing, and a
				// keyframe can only paint it with the character's pen.
				ca.setStyle(style{})
				cb.setStyle(style{})
			}
			// A pad shows as the blank it is; a keyframe makes it
			// again only where a wrap can (see wrapsInto).
			ca.Flags &^= FlagPad
			cb.Flags &^= FlagPad
			if ca != cb || la != lb {
				return fmt.Sprintf("cell %d,%d: %+v %q, want %+v %q\nwant:\n%s\ngot:\n%s", x, y, cb, lb, ca, la,
					RenderText(nil, fa), RenderText(nil, fb))
			}
		}
	}
	if fa.Cursor != fb.Cursor {
		return fmt.Sprintf("cursor %+v, want %+v", fb.Cursor, fa.Cursor)
	}
	if fa.Modes != fb.Modes {
		return fmt.Sprintf("modes %+v, want %+v", fb.Modes, fa.Modes)
	}
	if fa.Title != fb.Title {
		return fmt.Sprintf("title %q, want %q", fb.Title, fa.Title)
	}
	return ""
}

func linkOf(f *Frame, id uint16) string {
	if int(id) < len(f.Links) {
		return f.Links[id]
	}
	return ""
}

// checkKeyframe writes head into a screen A, replays A's keyframe into a
// fresh screen and into one that showed other things, and compares each
// with A; then writes tail into all three and compares again, since a
// recording goes on after its keyframe.
func checkKeyframe(t testing.TB, cols, rows int, head, tail string) {
	t.Helper()
	a, _ := newScreen(t, cols, rows)
	a.Write(head)
	kf := a.Keyframe(nil)
	if !utf8.Valid(kf) {
		t.Fatalf("keyframe is not UTF-8: %q", kf)
	}
	fresh, _ := newScreen(t, cols, rows)
	used, _ := newScreen(t, cols, rows)
	used.Write(dirtyStream)
	for _, b := range []*Screen{fresh, used} {
		b.Write(string(kf))
		if d := screenDiff(a, b); d != "" {
			t.Fatalf("after the keyframe: %s\nhead %q\nkeyframe %q", d, head, kf)
		}
	}
	a.Write(tail)
	for _, b := range []*Screen{fresh, used} {
		b.Write(tail)
		if d := screenDiff(a, b); d != "" {
			t.Fatalf("after the tail: %s\nhead %q\ntail %q\nkeyframe %q", d, head, tail, kf)
		}
	}
}

// dirtyStream leaves a screen in every state a keyframe must undo.
const dirtyStream = "\x1b]2;old\x07\x1b[1;41mjunk everywhere\x1b[5;10r\x1b[?6h\x1b[4h\x1b[?7l\x1b[?1h\x1b=" +
	"\x1b[?2004h\x1b[?1003h\x1b[?1006h\x1b[?25l\x1b[5 q\x1b]12;red\x07\x1b)0\x0e" +
	"\x1b[?1049h\x1b[44malt junk\x1b[?2026h\x1b]8;;http://old\x1b\\link"

// genStream returns a random stream of what programs send: text of every
// width, colours, attributes, links, cursor moves, erases, the alternate
// screen, scroll regions, modes and charsets.
func genStream(r *rand.Rand, n int) string {
	pieces := []string{
		"hello", "world ", "日本語", "e\u0301", "🇫🇷", "👍🏽", "👨‍👩‍👧", "❤\ufe0f", "\r\n", "\n", "\r", "\t", "\b",
		"\x1b[1m", "\x1b[2;3;4:3m", "\x1b[9;53m", "\x1b[7m", "\x1b[0m", "\x1b[m", "\x1b[31;44m",
		"\x1b[38;5;200m", "\x1b[48;2;10;20;30m", "\x1b[58;5;9m", "\x1b[4m", "\x1b[24m",
		"\x1b]8;;https://example.com\x1b\\", "\x1b]8;;\x1b\\", "\x1b[H", "\x1b[5;3H", "\x1b[2J", "\x1b[K",
		"\x1b[1K", "\x1b[J", "\x1b[2@", "\x1b[3P", "\x1b[L", "\x1b[2M", "\x1b[3X", "\x1b7", "\x1b8",
		"\x1b[?1049h", "\x1b[?1049l", "\x1b[?47h", "\x1b[?47l", "\x1b[3;8r", "\x1b[r", "\x1b[?6h", "\x1b[?6l",
		"\x1b[?7l", "\x1b[?7h", "\x1b[4h", "\x1b[4l", "\x1b[?25l", "\x1b[?25h", "\x1b[?1h", "\x1b=",
		"\x1b>", "\x1b[?2004h", "\x1b[?1000h", "\x1b[?1006h", "\x1b[3 q", "\x1b]2;title\x07",
		"\x1b(0lqk\x1b(B", "\x1b)0\x0eabc\x0f", "\x1bM", "\x1bD", "\x1bE", "\x1b[2S", "\x1b[T",
		"\x1b[?1004h", "\x1b[?12h", "\x1b]12;#00ff00\x07", "\x1b[20h", "\x1b[20l", "\x1b[3b",
		"\x1b[s", "\x1b[u", "\x1b[?1048h", "\x1b[?1048l", "\x1b[10G", "\x1b[5d", "\x1b[3A", "\x1b[2C",
		strings.Repeat("x", 85), "wide日", "\x1b[999C日", "\x1b[999Cx", "\x1bH", "\x1b[g", "\x1b[3g", "\t\t",
	}
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// cutAt returns a rune boundary at or after i.
func cutAt(s string, i int) int {
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return min(i, len(s))
}

func TestKeyframeGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		s := genStream(r, 200+r.IntN(3000))
		cut := cutAt(s, r.IntN(len(s)))
		cols, rows := 20+r.IntN(70), 5+r.IntN(25)
		t.Run(fmt.Sprint(i), func(t *testing.T) { checkKeyframe(t, cols, rows, s[:cut], s[cut:]) })
	}
}

// TestKeyframeCases pins states a keyframe must carry.
func TestKeyframeCases(t *testing.T) {
	for name, c := range map[string]struct{ head, tail string }{
		"empty":          {"", "hi"},
		"wrap pending":   {strings.Repeat("a", 20), "b"},
		"wide wrap":      {strings.Repeat("a", 18) + "日", "b"},
		"alt restores":   {"\x1b[31mmain text\x1b[3;4H\x1b[?1049h\x1b[44malt", "\x1b[?1049lafter"},
		"saved cursor":   {"\x1b[3;5H\x1b[1;32m\x1b7\x1b[m\x1b[H", "\x1b8x"},
		"region":         {"\x1b[2;4r\x1b[4;1Hline\n\n\nmore", "\n\nend"},
		"origin":         {"\x1b[2;4r\x1b[?6h\x1b[2;3Hx", "\x1b[1;1Hy"},
		"partial csi":    {"abc\x1b[3", "1mred"},
		"partial osc":    {"\x1b]2;half", " title\x07"},
		"partial esc":    {"\x1b", "[2Jx"},
		"partial string": {"\x1b]2;" + strings.Repeat("y", 5000), "\x07ok"},
		"string esc":     {"\x1b]2;t\x1b", "\\x"},
		"link":           {"\x1b]8;;http://a\x1b\\link", "more\x1b]8;;\x1b\\ plain"},
		"ul colour":      {"\x1b[58;5;3mx", "\x1b[4my"},
		"charsets":       {"\x1b)0\x0elq", "k\x0fk"},
		"insert":         {"abcdef\x1b[4h\x1b[1;2H", "XY"},
		"flags apart":    {"\U0001F1EB\x1b[5;1H\x1b[1;2H\U0001F1F7", ""},
		"resize alt":     {"main\x1b[?1049halt", "\x1b[?1049l"},
		"saved wrap":     {strings.Repeat("a", 20) + "\x1b7\x1b[H", "\x1b8b"},
		"saved wrap alt": {strings.Repeat("a", 20) + "\x1b[?1049h\x1b[Hx", "\x1b[?1049lb"},
		"rep gfx":        {"\x1b(0lqk\x1b(B", "\x1b[3b"},
		"ind wrap":       {"\x1b[6;1H" + strings.Repeat("a", 20) + "\x1bD", "b"},
		"tabs":           {"\x1b[3g\x1b[1;4H\x1bH\x1b[1;11H\x1bH\r", "\ta\tb\tc"},
	} {
		t.Run(name, func(t *testing.T) { checkKeyframe(t, 20, 6, c.head, c.tail) })
	}
}

// TestKeyframeAltResized: the main screen under the alternate one follows
// a resize as vt10x's own does.
func TestKeyframeAltResized(t *testing.T) {
	a, _ := newScreen(t, 20, 6)
	a.Write("\x1b[31mmain 1\r\nmain 2\x1b[6;1Hbottom\x1b[?1049h\x1b[44malt")
	a.Resize(15, 4)
	b, _ := newScreen(t, 15, 4)
	b.Write(string(a.Keyframe(nil)))
	a.Write("\x1b[?1049l")
	b.Write("\x1b[?1049l")
	if d := screenDiff(a, b); d != "" {
		t.Fatal(d)
	}
}

// TestKeyframeReplayCorpus cuts real programs' output anywhere.
func TestKeyframeReplayCorpus(t *testing.T) {
	paths, err := filepath.Glob("testdata/replay/*.vt")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no replay corpus: %v", err)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		s := strings.ToValidUTF8(string(data), "\uFFFD")
		for i := 1; i <= 8; i++ {
			cut := cutAt(s, len(s)*i/9)
			t.Run(fmt.Sprintf("%s/%d", filepath.Base(p), i), func(t *testing.T) {
				checkKeyframe(t, 80, 24, s[:cut], s[cut:])
			})
		}
	}
}

func FuzzKeyframe(f *testing.F) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 8 {
		f.Add(genStream(r, 400), uint16(200))
	}
	f.Add("\x1b[?1049habc\x1b[2;3r", uint16(5))
	// The keyframe must reproduce any screen; what follows it may differ
	// in the few states a keyframe cannot set (see keyframe.go), so only
	// the screen right after it is compared.
	f.Fuzz(func(t *testing.T, s string, cut uint16) {
		s = strings.ToValidUTF8(s, "\uFFFD")
		i := cutAt(s, int(cut)%(len(s)+1))
		checkKeyframe(t, 20, 6, s[:i], s[i:])
	})
}
