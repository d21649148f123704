package encode

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"

	"github.com/sandmux/sandmux/session/vt"
)

// kittyCase is one key under the flags that matter: none (legacy), 1
// (disambiguate), 3 (and event types), 8 (every key as an escape code,
// which implies disambiguation) and 31 (everything).
type kittyCase struct {
	name string
	key  tea.Key
	ev   keyEvent
	want [5]string // for flags 0, 1, 3, 8, 31
}

var kittyFlagSet = [5]vt.KeyFlags{0, 1, 3, 8, 31}

// kittyCases are the keys agents rely on, as the protocol's
// specification encodes them
// (https://sw.kovidgoyal.net/kitty/keyboard-protocol/).
var kittyCases = []kittyCase{
	{"enter", tea.Key{Code: tea.KeyEnter}, keyPress, [5]string{"\r", "\r", "\r", "\x1b[13u", "\x1b[13u"}},
	{"shift+enter", tea.Key{Code: tea.KeyEnter, Mod: tea.ModShift}, keyPress, [5]string{"\r", "\x1b[13;2u", "\x1b[13;2u", "\x1b[13;2u", "\x1b[13;2u"}},
	{"ctrl+enter", tea.Key{Code: tea.KeyEnter, Mod: tea.ModCtrl}, keyPress, [5]string{"\r", "\x1b[13;5u", "\x1b[13;5u", "\x1b[13;5u", "\x1b[13;5u"}},
	{"alt+enter", tea.Key{Code: tea.KeyEnter, Mod: tea.ModAlt}, keyPress, [5]string{"\x1b\r", "\x1b[13;3u", "\x1b[13;3u", "\x1b[13;3u", "\x1b[13;3u"}},
	{"ctrl+shift+a", tea.Key{Code: 'a', ShiftedCode: 'A', Mod: tea.ModCtrl | tea.ModShift}, keyPress, [5]string{"\x01", "\x1b[97;6u", "\x1b[97;6u", "\x1b[97;6u", "\x1b[97:65;6u"}},
	{"ctrl+shift+a legacy", tea.Key{Code: 'A', Mod: tea.ModCtrl | tea.ModShift}, keyPress, [5]string{"\x01", "\x1b[97;6u", "\x1b[97;6u", "\x1b[97;6u", "\x1b[97:65;6u"}},
	{"ctrl+i", tea.Key{Code: 'i', Mod: tea.ModCtrl}, keyPress, [5]string{"\t", "\x1b[105;5u", "\x1b[105;5u", "\x1b[105;5u", "\x1b[105;5u"}},
	{"tab", tea.Key{Code: tea.KeyTab}, keyPress, [5]string{"\t", "\t", "\t", "\x1b[9u", "\x1b[9u"}},
	{"shift+tab", tea.Key{Code: tea.KeyTab, Mod: tea.ModShift}, keyPress, [5]string{"\x1b[Z", "\x1b[9;2u", "\x1b[9;2u", "\x1b[9;2u", "\x1b[9;2u"}},
	{"ctrl+m", tea.Key{Code: 'm', Mod: tea.ModCtrl}, keyPress, [5]string{"\r", "\x1b[109;5u", "\x1b[109;5u", "\x1b[109;5u", "\x1b[109;5u"}},
	{"esc", tea.Key{Code: tea.KeyEscape}, keyPress, [5]string{"\x1b", "\x1b[27u", "\x1b[27u", "\x1b[27u", "\x1b[27u"}},
	{"alt+x", tea.Key{Code: 'x', Mod: tea.ModAlt}, keyPress, [5]string{"\x1bx", "\x1b[120;3u", "\x1b[120;3u", "\x1b[120;3u", "\x1b[120;3u"}},
	{"alt+[", tea.Key{Code: '[', Mod: tea.ModAlt}, keyPress, [5]string{"\x1b[", "\x1b[91;3u", "\x1b[91;3u", "\x1b[91;3u", "\x1b[91;3u"}},
	{"a", tea.Key{Code: 'a', Text: "a"}, keyPress, [5]string{"a", "a", "a", "\x1b[97u", "\x1b[97;;97u"}},
	{"shift+a", tea.Key{Code: 'a', ShiftedCode: 'A', Mod: tea.ModShift, Text: "A"}, keyPress, [5]string{"A", "A", "A", "\x1b[97;2u", "\x1b[97:65;2;65u"}},
	{"é", tea.Key{Code: 'é', Text: "é"}, keyPress, [5]string{"é", "é", "é", "\x1b[233u", "\x1b[233;;233u"}},
	{"space", tea.Key{Code: tea.KeySpace, Text: " "}, keyPress, [5]string{" ", " ", " ", "\x1b[32u", "\x1b[32;;32u"}},
	{"ctrl+space", tea.Key{Code: tea.KeySpace, Mod: tea.ModCtrl}, keyPress, [5]string{"\x00", "\x1b[32;5u", "\x1b[32;5u", "\x1b[32;5u", "\x1b[32;5u"}},
	{"backspace", tea.Key{Code: tea.KeyBackspace}, keyPress, [5]string{"\x7f", "\x7f", "\x7f", "\x1b[127u", "\x1b[127u"}},
	{"ctrl+backspace", tea.Key{Code: tea.KeyBackspace, Mod: tea.ModCtrl}, keyPress, [5]string{"\x08", "\x1b[127;5u", "\x1b[127;5u", "\x1b[127;5u", "\x1b[127;5u"}},
	{"up", tea.Key{Code: tea.KeyUp}, keyPress, [5]string{"\x1b[A", "\x1b[A", "\x1b[A", "\x1b[A", "\x1b[A"}},
	{"ctrl+up", tea.Key{Code: tea.KeyUp, Mod: tea.ModCtrl}, keyPress, [5]string{"\x1b[1;5A", "\x1b[1;5A", "\x1b[1;5A", "\x1b[1;5A", "\x1b[1;5A"}},
	{"f1", tea.Key{Code: tea.KeyF1}, keyPress, [5]string{"\x1bOP", "\x1b[P", "\x1b[P", "\x1b[P", "\x1b[P"}},
	{"f3", tea.Key{Code: tea.KeyF3}, keyPress, [5]string{"\x1bOR", "\x1b[13~", "\x1b[13~", "\x1b[13~", "\x1b[13~"}},
	{"shift+f5", tea.Key{Code: tea.KeyF5, Mod: tea.ModShift}, keyPress, [5]string{"\x1b[15;2~", "\x1b[15;2~", "\x1b[15;2~", "\x1b[15;2~", "\x1b[15;2~"}},
	{"delete", tea.Key{Code: tea.KeyDelete}, keyPress, [5]string{"\x1b[3~", "\x1b[3~", "\x1b[3~", "\x1b[3~", "\x1b[3~"}},
	{"keypad enter", tea.Key{Code: tea.KeyKpEnter}, keyPress, [5]string{"\r", "\x1b[57414u", "\x1b[57414u", "\x1b[57414u", "\x1b[57414u"}},
	{"caps lock a", tea.Key{Code: 'a', Mod: tea.ModCapsLock, Text: "A"}, keyPress, [5]string{"A", "A", "A", "\x1b[97;65u", "\x1b[97;65;65u"}},
	{"esc repeat", tea.Key{Code: tea.KeyEscape}, keyRepeat, [5]string{"\x1b", "\x1b[27u", "\x1b[27;1:2u", "\x1b[27u", "\x1b[27;1:2u"}},
	{"esc release", tea.Key{Code: tea.KeyEscape}, keyRelease, [5]string{"", "", "\x1b[27;1:3u", "", "\x1b[27;1:3u"}},
	{"enter release", tea.Key{Code: tea.KeyEnter}, keyRelease, [5]string{"", "", "", "", "\x1b[13;1:3u"}},
	{"a release", tea.Key{Code: 'a', Text: "a"}, keyRelease, [5]string{"", "", "\x1b[97;1:3u", "", "\x1b[97;1:3;97u"}},
	{"shift+enter release", tea.Key{Code: tea.KeyEnter, Mod: tea.ModShift}, keyRelease, [5]string{"", "", "\x1b[13;2:3u", "", "\x1b[13;2:3u"}},
	{"up release", tea.Key{Code: tea.KeyUp}, keyRelease, [5]string{"", "", "\x1b[1;1:3A", "", "\x1b[1;1:3A"}},
}

// encodeEvent is Key for any event: a release only for a child
// with event types.
func encodeEvent(k tea.Key, ev keyEvent, m vt.Modes) string {
	if m.KeyFlags != 0 {
		return string(encodeKitty(nil, k, ev, m.KeyFlags, m))
	}
	if ev == keyRelease {
		return ""
	}
	return string(Key(nil, k, m))
}

func TestEncodeKittyTable(t *testing.T) {
	for _, c := range kittyCases {
		for i, fl := range kittyFlagSet {
			if got := encodeEvent(c.key, c.ev, vt.Modes{KeyFlags: fl}); got != c.want[i] {
				t.Errorf("%s, flags %d: %q, want %q", c.name, fl, got, c.want[i])
			}
		}
	}
}

// TestEncodeModifyOtherKeys: the keys xterm changes under modifyOtherKeys
// 1 and 2, and those it leaves.
func TestEncodeModifyOtherKeys(t *testing.T) {
	cases := []struct {
		name   string
		key    tea.Key
		l1, l2 string
	}{
		{"shift+enter", tea.Key{Code: tea.KeyEnter, Mod: tea.ModShift}, "\x1b[27;2;13~", "\x1b[27;2;13~"},
		{"ctrl+enter", tea.Key{Code: tea.KeyEnter, Mod: tea.ModCtrl}, "\x1b[27;5;13~", "\x1b[27;5;13~"},
		{"alt+enter", tea.Key{Code: tea.KeyEnter, Mod: tea.ModAlt}, "\x1b\r", "\x1b[27;3;13~"},
		{"ctrl+tab", tea.Key{Code: tea.KeyTab, Mod: tea.ModCtrl}, "\x1b[27;5;9~", "\x1b[27;5;9~"},
		{"shift+tab", tea.Key{Code: tea.KeyTab, Mod: tea.ModShift}, "\x1b[Z", "\x1b[Z"},
		{"ctrl+a", tea.Key{Code: 'a', Mod: tea.ModCtrl}, "\x01", "\x1b[27;5;97~"},
		{"ctrl+shift+a", tea.Key{Code: 'a', Mod: tea.ModCtrl | tea.ModShift}, "\x1b[27;6;65~", "\x1b[27;6;65~"},
		{"alt+x", tea.Key{Code: 'x', Mod: tea.ModAlt}, "\x1bx", "\x1b[27;3;120~"},
		{"shift+a", tea.Key{Code: 'a', ShiftedCode: 'A', Mod: tea.ModShift, Text: "A"}, "A", "A"},
		{"a", tea.Key{Code: 'a', Text: "a"}, "a", "a"},
		{"enter", tea.Key{Code: tea.KeyEnter}, "\r", "\r"},
		{"esc", tea.Key{Code: tea.KeyEscape}, "\x1b", "\x1b"},
		{"ctrl+up", tea.Key{Code: tea.KeyUp, Mod: tea.ModCtrl}, "\x1b[1;5A", "\x1b[1;5A"},
		{"ctrl+space", tea.Key{Code: tea.KeySpace, Mod: tea.ModCtrl}, "\x00", "\x1b[27;5;32~"},
	}
	for _, c := range cases {
		if got := string(Key(nil, c.key, vt.Modes{ModifyOtherKeys: 1})); got != c.l1 {
			t.Errorf("%s, level 1: %q, want %q", c.name, got, c.l1)
		}
		if got := string(Key(nil, c.key, vt.Modes{ModifyOtherKeys: 2})); got != c.l2 {
			t.Errorf("%s, level 2: %q, want %q", c.name, got, c.l2)
		}
	}
	// The kitty protocol wins when a child asked for both.
	if got := string(Key(nil, tea.Key{Code: tea.KeyEnter, Mod: tea.ModShift}, vt.Modes{KeyFlags: 1, ModifyOtherKeys: 2})); got != "\x1b[13;2u" {
		t.Errorf("both: %q", got)
	}
}

// FuzzEncodeKeyProtocols: any key under any flags encodes to valid bytes the
// protocol's grammar allows (text, a C0 byte, ESC and a key's bytes, or a
// CSI sequence of digits, ':' and ';'), deterministically.
func FuzzEncodeKeyProtocols(f *testing.F) {
	f.Add(int32('a'), int32('A'), int32(0), uint16(1), "A", uint8(1), uint8(31), uint8(0), false)
	f.Add(int32(tea.KeyEnter), int32(0), int32(0), uint16(1), "", uint8(3), uint8(1), uint8(2), true)
	f.Fuzz(func(t *testing.T, code, shifted, base int32, mod uint16, text string, ev, flags, mok uint8, app bool) {
		k := tea.Key{Code: rune(code), ShiftedCode: rune(shifted), BaseCode: rune(base), Mod: tea.KeyMod(mod), Text: text}
		m := vt.Modes{KeyFlags: vt.KeyFlags(flags) & vt.KeyFlagsAll, ModifyOtherKeys: mok % 3, AppCursor: app}
		e := keyEvent(ev%3 + 1)
		got := encodeEvent(k, e, m)
		if again := encodeEvent(k, e, m); again != got {
			t.Fatalf("not deterministic: %q then %q", got, again)
		}
		if utf8.ValidString(text) && !utf8.ValidString(got) {
			t.Fatalf("%+v: invalid UTF-8 %q", k, got)
		}
		if rest, ok := strings.CutPrefix(got, "\x1b["); ok && len(rest) > 0 {
			body, final := rest[:len(rest)-1], rest[len(rest)-1]
			if strings.Trim(body, "0123456789;:") != "" || !strings.ContainsRune("uABCDFHPQS~Z", rune(final)) {
				t.Fatalf("%+v flags %d: malformed %q", k, m.KeyFlags, got)
			}
		}
	})
}

// TestEncodeKittyAgainstKitty compares the encoder with kitty's own
// (kitty +runpy, encode_key_for_tty) for every key, modifier, event and
// flag combination, but where the specification moved on from the kitty
// Debian ships (0.26): F3 is CSI 13 ~ now, Enter, Tab and Backspace send
// no release without every key as an escape code, and that flag implies
// disambiguation.
func TestEncodeKittyAgainstKitty(t *testing.T) {
	kitty, err := exec.LookPath("kitty")
	if err != nil {
		if os.Getenv("SANDMUX_REQUIRE_ALL") == "1" {
			t.Fatalf("kitty required (SANDMUX_REQUIRE_ALL=1): %v", err)
		}
		t.Skipf("SKIPPING: no kitty (apt-get install kitty): %v", err)
	}
	type query struct {
		Key, Shifted, Mods, Action, Flags int
		Text                              string
	}
	type input struct {
		key tea.Key
		ev  keyEvent
		fl  vt.KeyFlags
	}
	var qs []query
	var ins []input
	add := func(k tea.Key, kc int, shifted rune) {
		for _, mods := range []tea.KeyMod{0, tea.ModShift, tea.ModAlt, tea.ModCtrl, tea.ModCtrl | tea.ModShift,
			tea.ModCtrl | tea.ModAlt, tea.ModShift | tea.ModAlt | tea.ModCtrl, tea.ModCapsLock} {
			for _, ev := range []keyEvent{keyPress, keyRepeat, keyRelease} {
				for fl := vt.KeyFlags(1); fl <= vt.KeyFlagsAll; fl += 2 {
					if ev == keyRelease && fl&vt.KeyAllAsEscapes == 0 && (k.Code == tea.KeyEnter || k.Code == tea.KeyTab || k.Code == tea.KeyBackspace) {
						continue
					}
					if k.Code >= utf8.RuneSelf && fl&vt.KeyAssociatedText != 0 {
						continue // kitty 0.26 leaves non-ASCII text out, malformed
					}
					kk := k
					kk.Mod, kk.ShiftedCode = mods, shifted
					if k.Text != "" {
						switch mods {
						case 0:
						case tea.ModShift:
							kk.Text = string(shifted)
						case tea.ModCapsLock:
							kk.Text = strings.ToUpper(k.Text)
						default:
							kk.Text = ""
						}
					}
					qs = append(qs, query{Key: kc, Shifted: int(shifted), Mods: kittyMods(mods), Action: int(ev), Flags: int(fl), Text: kk.Text})
					ins = append(ins, input{kk, ev, fl})
				}
			}
		}
	}
	for code, kc := range oracleKeys {
		add(tea.Key{Code: code}, kc, 0)
	}
	for _, r := range "az09[;/é" {
		add(tea.Key{Code: r, Text: string(r)}, int(r), usShifted[r])
	}
	cmd := exec.Command(kitty, "+runpy", oracleScript)
	var in strings.Builder
	for _, q := range qs {
		b, _ := json.Marshal(q)
		in.Write(append(b, '\n'))
	}
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("kitty's encoder: %v", err)
	}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for i := 0; sc.Scan(); i++ {
		var want string
		if err := json.Unmarshal(sc.Bytes(), &want); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		c := ins[i]
		got := encodeEvent(c.key, c.ev, vt.Modes{KeyFlags: c.fl})
		if got != want {
			t.Errorf("%s ev %d flags %d: %q, kitty %q", c.key.Keystroke(), c.ev, c.fl, got, want)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// oracleKeys are kitty's numbers of the functional keys it encodes (its
// GLFW_FKEY_* values), F3 left out (see above).
var oracleKeys = map[rune]int{
	tea.KeyEscape: 57344, tea.KeyEnter: 57345, tea.KeyTab: 57346, tea.KeyBackspace: 57347,
	tea.KeyInsert: 57348, tea.KeyDelete: 57349, tea.KeyLeft: 57350, tea.KeyRight: 57351,
	tea.KeyUp: 57352, tea.KeyDown: 57353, tea.KeyPgUp: 57354, tea.KeyPgDown: 57355,
	tea.KeyHome: 57356, tea.KeyEnd: 57357, tea.KeyF1: 57364, tea.KeyF2: 57365, tea.KeyF4: 57367,
	tea.KeyF5: 57368, tea.KeyF12: 57375, tea.KeyKp1: 57400, tea.KeyKpEnter: 57414, tea.KeyKpUp: 57419,
}

// usShifted is what shift makes of a few keys on a US keyboard.
var usShifted = map[rune]rune{'a': 'A', 'z': 'Z', '0': ')', '9': '(', '[': '{', ';': ':', '/': '?', 'é': 'É'}

// oracleScript reads one JSON query a line and prints kitty's encoding of
// each as a JSON string.
const oracleScript = `
import sys, json
import kitty.fast_data_types as f
acts = {1: f.GLFW_PRESS, 2: f.GLFW_REPEAT, 3: f.GLFW_RELEASE}
for line in sys.stdin:
    q = json.loads(line)
    print(json.dumps(f.encode_key_for_tty(key=q["Key"], shifted_key=q["Shifted"], mods=q["Mods"],
        action=acts[q["Action"]], key_encoding_flags=q["Flags"], text=q["Text"])))
`
