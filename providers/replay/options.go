package replay

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sandmux/sandmux/providers"
)

// Options are the replay provider's settings for one sandbox, parsed by
// ParseOptions.
type Options struct {
	// File is the recording: an absolute path, ~ expanded.
	File string
	// Speed divides every pause; 0 plays without pauses.
	Speed float64
	// Loop starts the recording again after its end, on a reset screen.
	Loop bool
}

// MaxSpeed bounds the speed key: past it every pause is below what a
// screen shows anyway.
const MaxSpeed = 1000

// Key describes one option key, for the config file's docs and checks.
type Key = providers.OptionKey

// OptionKeys lists every key ParseOptions accepts.
var OptionKeys = []Key{
	{Name: "file", Kind: "string", Note: "required",
		Help: "The asciicast v2 recording to play: an absolute path, or one starting with ~/."},
	{Name: "speed", Kind: "number, 0 to 1000", Default: int64(1),
		Help: "How many times faster than recorded to play (0.5 is half as fast); 0 plays without any pause."},
	{Name: "loop", Kind: "bool", Default: false,
		Help: "Play the recording again from a blank screen after it ends, until the pane is closed; the pane never exits."},
}

// ParseOptions validates the replay provider's options as decoded from
// TOML. The file is not opened here: a recording may appear after the
// config is written, and a missing one fails its pane only.
func ParseOptions(m map[string]any) (Options, error) {
	o := Options{Speed: 1}
	var errs []error
	fail := func(key string, err error) { errs = append(errs, fmt.Errorf("replay option %s: %w", key, err)) }
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !slices.ContainsFunc(OptionKeys, func(o Key) bool { return o.Name == k }) {
			fail(k, errors.New("unknown key (the replay provider's keys are file, speed and loop)"))
		}
	}
	if f, err := file(m["file"]); err != nil {
		fail("file", err)
	} else {
		o.File = f
	}
	switch v := m["speed"].(type) {
	case nil:
	case int64:
		o.Speed = float64(v)
	case float64:
		o.Speed = v
	default:
		fail("speed", fmt.Errorf("%v is not a number (write speed = 2, or 0.5)", v))
	}
	if !(o.Speed >= 0 && o.Speed <= MaxSpeed) {
		fail("speed", fmt.Errorf("%v is out of range (write a number from 0 to %d)", o.Speed, MaxSpeed))
	}
	if v, ok := m["loop"]; ok {
		if o.Loop, ok = v.(bool); !ok {
			fail("loop", fmt.Errorf("%v is not a bool (write true or false)", v))
		}
	}
	if o.Loop && o.Speed == 0 {
		fail("loop", errors.New("with speed = 0 a loop would redraw without pause for as long as the pane is open (set a speed above 0, or loop = false)"))
	}
	return o, errors.Join(errs...)
}

func file(v any) (string, error) {
	s, ok := v.(string)
	switch {
	case v == nil || ok && s == "":
		return "", errors.New(`missing: set file = "~/recordings/run.cast" (an asciicast v2 recording) in the replay provider's table`)
	case !ok:
		return "", fmt.Errorf("%v is not a string (write the recording's path in quotes)", v)
	}
	if rest, found := strings.CutPrefix(s, "~/"); found {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("expand %q: %w (write an absolute path)", s, err)
		}
		s = filepath.Join(home, rest)
	}
	if !filepath.IsAbs(s) {
		return "", fmt.Errorf("%q is relative (write an absolute path, or one starting with ~/: a server does not run in your directory)", s)
	}
	return filepath.Clean(s), nil
}
