package vt_test

import (
	"fmt"
	"testing"
)

// A program that asks for DA1 and waits for the answer, as fish 4 and
// Bubble Tea v2 do at startup: it prints only whether an answer came.
const da1Py = `import os, sys, termios, tty, select
fd = os.open("/dev/tty", os.O_RDWR)
old = termios.tcgetattr(fd)
tty.setraw(fd)
os.write(fd, b"\x1b[?u\x1b[c")
buf = b""
while not buf.endswith(b"c"):
    r, _, _ = select.select([fd], [], [], 10)
    if not r:
        break
    buf += os.read(fd, 1)
termios.tcsetattr(fd, termios.TCSADRAIN, old)
ok = buf.startswith(b"\x1b[?") and buf.endswith(b"c")
print("DA1 answered" if ok else "no DA1 answer: %r" % buf)
`

// A curses program: a box, colours, attributes, text at positions. It
// syncs (CPR) and signals DONE while curses still owns the screen.
const cursesPy = `import curses, os, sys
def main(w):
    curses.start_color()
    curses.use_default_colors()
    curses.init_pair(1, curses.COLOR_RED, -1)
    curses.init_pair(2, curses.COLOR_WHITE, curses.COLOR_BLUE)
    curses.init_pair(3, 46, 236)
    w.box()
    w.addstr(1, 2, "sandmux curses test", curses.A_BOLD)
    w.addstr(2, 2, "red text", curses.color_pair(1))
    w.addstr(3, 2, "white on blue", curses.color_pair(2) | curses.A_UNDERLINE)
    w.addstr(4, 2, "256 colours", curses.color_pair(3))
    w.addstr(5, 2, "reverse", curses.A_REVERSE)
    w.addstr(6, 2, "=" * 30)
    w.addstr(7, 2, "日本語 wide")
    w.addstr(8, 10, "x" * 20)
    w.move(8, 15)
    w.clrtoeol()
    w.addstr(9, 2, "-" * 10 + " end")
    w.move(2, 20)
    w.refresh()
    sys.stdout.flush()
    os.write(1, b"\x1b[6n")
    buf = b""
    while not buf.endswith(b"R"):
        buf += os.read(0, 1)
    open(os.environ["D"] + "/DONE", "w").close()
    import time
    time.sleep(60)
curses.wrapper(main)
`

// A program that waits until the terminal has grown, then prints tabs.
const waitGrowSh = `printf 'ready\n'
while [ "$(stty size)" = "5 20" ]; do sleep 0.02; done
printf 'a\tb\tc\td\te\tf\tg|\n'
printf '\t\t\t\t\t\tX\n'
`

var diffCases = []diffCase{
	{name: "plain", cols: 30, rows: 5, cursor: true, script: `printf 'hello\nworld\n  indented\n'`},
	{name: "colours16", cols: 40, rows: 6, styles: true, script: `printf '\033[31mred\033[42mgreen-bg\033[0m \033[91mbright\033[104mbg\033[m\n\033[1;34mbold blue\033[22m not bold\033[m\n\033[3mital\033[23m \033[4munder\033[24m \033[5mblink\033[25m \033[7mrev\033[27m\n\033[7;31;47mrev colours\033[m\n'`},
	{name: "colours256", cols: 40, rows: 4, styles: true, script: `for i in 0 7 15 16 100 196 231 232 255; do printf '\033[38;5;%dmX\033[48;5;%dmY\033[m' $i $i; done; printf '\n'`},
	{name: "truecolor", cols: 40, rows: 4, styles: true, script: `printf '\033[38;2;255;100;0morange\033[48;2;10;20;30m on navy\033[m\n\033[38;2;1;2;3mdark\033[m\n'`},
	{name: "colon SGR", cols: 40, rows: 4, styles: true, script: `printf '\033[38:2::255:0:0mred\033[48:5:21m blue-bg\033[m \033[4:3mcurly\033[4:0m plain\033[m\n'`},
	{name: "CJK", cols: 20, rows: 4, cursor: true, script: `printf '日本語テキスト|\nab日本cd|\n中文字符串abc'`},
	{name: "emoji", cols: 20, rows: 4, cursor: true, script: `printf '😀 ok 🎉|\n⚡x☺y\n'`},
	{name: "wide at right margin", cols: 10, rows: 4, cursor: true, script: `printf '123456789日x\n12345678日y\n'`},
	{name: "autowrap", cols: 20, rows: 6, cursor: true, script: `printf '%s' 'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ'; printf '\n\033[?7l'; printf '%s' 'nowrap-nowrap-nowrap-nowrap-END'; printf '\033[?7h\n'`},
	{name: "wrap pending then CR", cols: 10, rows: 4, cursor: true, script: `printf '0123456789\rX\n0123456789\nY'`},
	{name: "tabs", cols: 40, rows: 5, cursor: true, script: `printf 'a\tb\tc\n12345678\t9\n\033[3g\033[5G\033H\r\tX\033[20G\033H\r\t\tY\n\033[3g\rno stops\tZ\n'`},
	{name: "tabs after a resize", cols: 20, rows: 5, resize: [2]int{60, 5}, waitFor: "ready", script: waitGrowSh},
	{name: "scroll region", cols: 20, rows: 8, cursor: true, script: `printf '1\n2\n3\n4\n5\n6\n7\n8'; printf '\033[3;6r\033[6;1H\nA\nB\033[3;1H\033MC\033[r\033[8;1Hlast'`},
	{name: "insert delete lines", cols: 20, rows: 8, cursor: true, script: `printf 'a\nb\nc\nd\ne\nf'; printf '\033[2;3H\033[2L\033[6;1H\033[1M\033[1;1H\033[0L'`},
	{name: "insert delete chars", cols: 20, rows: 6, cursor: true, script: `printf 'abcdef\033[1;3H\033[2@XY\n'; printf 'abcdefgh\033[2;2H\033[2P\n'; printf 'abcdefgh\033[3;2H\033[3X\n'; printf 'abcdefgh\033[4;2H\033[0P\033[0@\033[0X\n'; printf 'abcdef\r\033[4hIN\033[4l\n'`},
	{name: "clear screen variants", cols: 12, rows: 8, cursor: true, script: `for i in 1 2 3 4 5 6 7; do printf 'line%d-xxxxx\n' $i; done; printf '\033[2;5H\033[K\033[3;5H\033[1K\033[4;5H\033[2K\033[6;5H\033[0J\033[2;3H\033[1J'`},
	{name: "clear and home", cols: 12, rows: 5, cursor: true, script: `printf 'junk\njunk\n\033[H\033[2Jfresh\n\033[3;3H\033[J'`, note: "tmux copies the screen into its history on ED 2; xterm does not, so history is not compared"},
	{name: "alt screen", cols: 20, rows: 5, cursor: true, script: `printf 'main1\n\033[?1049halt screen\033[?1049lmain2\n'`},
	{name: "redundant alt exits", cols: 20, rows: 6, cursor: true, script: `printf 'main1\n\033[?1049halt\033[?1049lmain2\n\033[?1049l\033[?47l\033[?1047lmain3\n'`},
	{name: "alt 47 and 1047", cols: 20, rows: 5, script: `printf 'keep\n\033[?47halt47\033[?47l\033[?1047halt1047\033[?1047lback\n'`},
	{name: "kitty keyboard queries", cols: 30, rows: 4, cursor: true, script: `stty -echo; printf 'a\033[?u\033[>1u\033[<u\033[=1;1ub\033[s\033[5C\033[?uc\n'`}, // echo off: sandmux answers CSI ? u, tmux 3.3a does not
	{name: "modifyOtherKeys", cols: 30, rows: 4, styles: true, script: `printf '\033[31mred\033[>4;2m still\033[>4m red\033[>4;0m\033[m\n'`},
	{name: "ESC ) 0", cols: 30, rows: 4, styles: true, script: `printf '\033)0abc\n\033)0\016lqqk\017 x\n\033(0x\033(B x\n'`},
	{name: "DA1 reply awaited", cols: 40, rows: 4, files: map[string]string{"da1.py": da1Py}, script: `python3 "$D/da1.py"`},
	{name: "save restore cursor", cols: 20, rows: 6, cursor: true, script: `printf 'abc\0337\033[3;5Hxyz\0338D\033[s\033[5;1HE\033[uF\n'`},
	{name: "seq 1 500", cols: 20, rows: 10, history: true, cursor: true, script: `seq 1 500`},
	{name: "long lines into history", cols: 10, rows: 4, history: true, script: `for i in 1 2 3 4 5 6; do printf 'row%d-abcdefghij-end\n' $i; done`},
	{name: "curses", cols: 50, rows: 12, styles: true, cursor: true, files: map[string]string{"tui.py": cursesPy}, script: `python3 "$D/tui.py"`},
	{name: "REP", cols: 20, rows: 4, script: `printf 'ab\033[3bc\n-\033[9b|\n'`, note: "tmux caps REP at the end of the line (xterm wraps); the case stays within a line"},
	{name: "combining marks", cols: 20, rows: 5, cursor: true, styles: true, script: `printf 'cafe\314\201 x\314\201 \033[1;31ma\314\201\314\202\033[m|\n\341\204\200\341\205\241|\n'; printf '\340\270\201\340\270\265\340\271\210\340\270\231 \340\244\225\340\245\201|\n'`},
	{name: "ZWJ sequences", cols: 20, rows: 4, cursor: true,
		note:   "tmux 3.3 joins the sequence into one cell (the cursor agrees) but its capture-pane writes the joiners out of order and loses the last emoji; the text is compared with the bytes as written",
		xterm:  []string{"a\u200db 👨\u200d👩\u200d👧|", "🇯🇵|😀︎|"},
		script: `printf 'a\342\200\215b \360\237\221\250\342\200\215\360\237\221\251\342\200\215\360\237\221\247|\n\360\237\207\257\360\237\207\265|\360\237\230\200\357\270\216|\n'`},
	{name: "VS16 kept narrow", cols: 20, rows: 4, cursor: true, note: "xterm and tmux 3.3 keep a narrow character with VS16 narrow, as wcwidth programs (vim) expect", script: `printf '\342\235\244\357\270\217|\342\235\204\357\270\217|x'`},
	{name: "title", cols: 20, rows: 3, title: true, script: `printf '\033]2;hello \342\200\234world\342\200\235\007text\n'`},
	{name: "modes do not print", cols: 30, rows: 4, script: `printf '\033[?2004h\033[?1000h\033[?1006h\033[?1004h\033[?2026hsync\033[?2026l\033[5 q\033[?12h\033[?1h\033=x\n'`},
	{name: "DECSTBM and RI at top", cols: 20, rows: 6, cursor: true, script: `printf '1\n2\n3\n4\n5\n6\033[2;5r\033[2;1H\033M\033MX\033[r'`},
	{name: "CUP with empty parameters", cols: 20, rows: 5, cursor: true, script: `printf '\033[;5HA\033[3;HB\033[0;0HC'`},
	{name: "origin mode", cols: 20, rows: 6, cursor: true, script: `printf '\033[2;4r\033[?6h\033[1;1HO\033[9;1HP\033[?6l\033[rQ'`},
	{name: "DECALN", cols: 6, rows: 3, script: `printf '\033#8'`},
	{name: "broken wide runes", cols: 20, rows: 5, cursor: true,
		note:   "tmux keeps a wide rune whose right half was overwritten or erased, and DCH on its left half deletes both cells; xterm blanks what is left of a broken wide rune and DCH deletes one cell",
		xterm:  []string{" x本語", "日y 語", "  本語", "日 語"},
		script: `printf '日本語\033[1;2Hx\n日本語\033[2;3Hy\n日本語\033[3;2H\033[X\n日本語\033[4;3H\033[P'`},
	{name: "backspace over wide", cols: 20, rows: 4, cursor: true, script: `printf 'ab日\bX\n日本\b\bY'`},
	{name: "charset saved with cursor", cols: 20, rows: 4, styles: true, script: `printf '\033(0q\0337\033(Bq\0338q\033(B q\n'`},
	{name: "bold and reverse colours", cols: 30, rows: 4, styles: true, script: `printf '\033[1;7;32;45mBR\033[m \033[1;33mbold\033[m \033[1;93mbright\033[m \033[1;38;5;3mx\033[m\n'`},
	{name: "cursor moves clamp", cols: 20, rows: 5, cursor: true, script: `printf '\033[99;99HA\033[99AB\033[99DC\033[0;0H\033[2BD\033[3CE\033[2EF\033[FG'`},
	{name: "tab and wrap pending", cols: 10, rows: 4, cursor: true, script: `printf '0123456789\tX\n01234567\t\tY\n'`},
	{name: "insert mode and wide", cols: 12, rows: 4, cursor: true, script: `printf 'abcdef\r\033[4h日x\033[4l\n'`},
	{name: "soft reset", cols: 20, rows: 6,
		note:   "tmux 3.3a's DECSTR leaves origin mode and the scroll region set; xterm resets both (the final newline then scrolls the whole screen)",
		xterm:  []string{"  XY", "", "", "", "Z"},
		script: `printf 'ab\033[2;4r\033[?6h\033[1;3H\033[4h\033[!pXY\033[6;1HZ\n'`},
	{name: "scroll region with history", cols: 10, rows: 6, history: true, script: `seq 1 10; printf '\033[1;3r\033[3;1H'; seq 11 15; printf '\033[r\033[6;1H'; seq 16 20`},
	{name: "bold base colours", cols: 40, rows: 4, styles: true, script: `printf '\033[1;34mdir\033[0m \033[1;31;42mB\033[22m n \033[1;37;7mR\033[m\n\033[01;32mexe\033[0m \033[1;90mgrey\033[m\n'`},
	{name: "RGB black and dark blues", cols: 40, rows: 4, styles: true, script: `printf '\033[38;2;0;0;0;48;2;255;255;255mblack\033[m \033[38;2;0;0;5mb5\033[48;2;0;0;200m b200\033[m \033[38:2::0:0:1mc\033[m\n'`},
	{name: "background erase on scroll", cols: 12, rows: 5, styles: true, script: `seq 1 4; printf '\033[44mblue\n\n\033[41mred\033D\033[m\n\033[42mgreen\033E\033[m\n\033[45m\033[S\033[m'` + markLastColumn(12, 5)},
	{name: "background erase on auto-wrap", cols: 12, rows: 3, styles: true, script: `printf '\n\n\033[42mgreen-wraps-onto\033[m'` + markLastColumn(12, 3),
		note:        "tmux blanks a line that auto-wrap scrolls in with the default background; xterm (xtermAutoWrap, as IND) with the current one",
		xtermStyles: []string{"«d/d/»           |", "«d/p2/»green-wraps«d/d/»|", "«d/p2/»onto       «d/d/»|"}},
	{name: "background erase on edits", cols: 12, rows: 6, styles: true, script: `printf 'abcdefghij\n0123456789\n\033[43;4;31m\033[1;5H\033[K\033[2;3H\033[2X\033[2P\033[1@\033[3;1H\033[1L\033[5;1H\033[J\033[m'` + markLastColumn(12, 6)},
	{name: "faint strike overline", cols: 40, rows: 4, styles: true, script: `printf '\033[2mfaint\033[22m \033[1;2mboth\033[22m \033[9mstruck\033[29m \033[53mover\033[55m \033[2;9;31mdone\033[m \033[8mhid\033[28mden\033[m\n'`},
	{name: "underline styles and colour", cols: 40, rows: 4, styles: true, script: `printf '\033[4msingle\033[4:2m double\033[4:3m curly\033[4:4m dotted\033[4:5m dashed\033[24m\n\033[4:3;58;5;196mred\033[58:2::0:128:255m rgb\033[59m plain\033[4:0m off\033[21m dbl\033[m\n'`},
	{name: "growing pulls scrollback back", cols: 20, rows: 6, resize: [2]int{20, 10}, waitFor: "ready", history: true, cursor: true, styles: true,
		script: `seq 1 12; printf '\033[44mblue\033[m e\314\201\n'; printf 'ready'; while [ "$(stty size)" = "6 20" ]; do sleep 0.02; done; printf ' grown'`},
	{name: "SU SD", cols: 10, rows: 6, history: true, script: `seq 1 6 | tr -d '\n'; printf '\r'; seq 1 5; printf '\033[2S\033[1T'`},
}

// markLastColumn is sh code that prints '|' in the last column of every
// row in the default style: capture-pane drops trailing blanks even when
// they have a background, so the mark keeps them in the comparison.
func markLastColumn(cols, rows int) string {
	return fmt.Sprintf("; printf '\\033[m'; for r in $(seq 1 %d); do printf '\\033[%%d;%dH|' $r; done", rows, cols)
}

func TestDifferentialTmux(t *testing.T) {
	if testing.Short() {
		t.Skip("differential tests run real programs")
	}
	runDiffCases(t, diffCases)
}
