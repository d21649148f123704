package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sandmux/sandmux/asciicast/casttest"
)

// A replay sandbox is a pane beside live ones in a real server: it plays
// its recording to the end and exits 0 on the recording's screen, while a
// replay whose file is missing fails alone, naming the file.
func TestReplayPaneBesideLive(t *testing.T) {
	cast := writeCastFile(t, 30, 8,
		casttest.Event{At: 0, Kind: "o", Data: "\x1b[1;32mreplayed\x1b[0m\r\n"}, casttest.Event{At: time.Second, Kind: "m", Data: "half"},
		casttest.Event{At: 2 * time.Second, Kind: "o", Data: "second line"})
	missing := filepath.Join(t.TempDir(), "missing.cast")
	s := startCtlServer(t, fmt.Sprintf(`
[[sandbox]]
name = "review"
provider = "replay"
replay = { file = %q, speed = 0 }

[[sandbox]]
name = "gone"
provider = "replay"
replay = { file = %q }

[[sandbox]]
name = "live"
command = "sleep 60"
`, cast, missing))
	s.ok("wait", "review", "--state", "exited")
	if screen := s.ok("screen", "review"); !strings.HasPrefix(screen, "replayed\nsecond line\n") {
		t.Errorf("the replay's screen:\n%s", screen)
	}
	ls := s.ok("ls")
	for _, want := range []string{
		`review +replay +done .* exited +0 `,
		`gone +replay +failed .*` + regexp.QuoteMeta(missing) + `: no such file`,
		`live +local +(idle|working) .* running `,
	} {
		if !regexp.MustCompile(want).MatchString(ls) {
			t.Errorf("ls does not match %q:\n%s", want, ls)
		}
	}
}
