package replay

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseOptions(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	o, err := ParseOptions(map[string]any{"file": "~/r/run.cast"})
	if err != nil || o.File != filepath.Join(home, "r/run.cast") || o.Speed != 1 || o.Loop {
		t.Errorf("defaults: %+v, %v", o, err)
	}
	o, err = ParseOptions(map[string]any{"file": "/r/../run.cast", "speed": int64(3), "loop": true})
	if err != nil || o.File != "/run.cast" || o.Speed != 3 || !o.Loop {
		t.Errorf("set: %+v, %v", o, err)
	}
	if o, err := ParseOptions(map[string]any{"file": "/a", "speed": 0.5}); err != nil || o.Speed != 0.5 {
		t.Errorf("float speed: %+v, %v", o, err)
	}
	for _, c := range []struct {
		m    map[string]any
		want string
	}{
		{map[string]any{}, "replay option file: missing"},
		{map[string]any{"file": ""}, "replay option file: missing"},
		{map[string]any{"file": int64(1)}, "replay option file: 1 is not a string"},
		{map[string]any{"file": "run.cast"}, `replay option file: "run.cast" is relative`},
		{map[string]any{"file": "/a", "speed": "fast"}, "replay option speed: fast is not a number"},
		{map[string]any{"file": "/a", "speed": int64(-1)}, "replay option speed: -1 is out of range"},
		{map[string]any{"file": "/a", "speed": 1e9}, "out of range"},
		{map[string]any{"file": "/a", "loop": "yes"}, "replay option loop: yes is not a bool"},
		{map[string]any{"file": "/a", "loop": true, "speed": int64(0)}, "replay option loop: with speed = 0"},
		{map[string]any{"file": "/a", "files": "/b"}, "replay option files: unknown key"},
	} {
		if _, err := ParseOptions(c.m); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseOptions(%v) = %v, want it to say %q", c.m, err, c.want)
		}
	}
}
