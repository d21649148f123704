package config

import (
	"reflect"
	"testing"
)

func TestConfigKeyLines(t *testing.T) {
	doc := `# comment [[sandbox]]
top = 1
[[sandbox]]
name = "a" # [ui]
s = """
[[sandbox]]
x = 1"""
[ sandbox . env ]
A = 'lit'
[[sandbox]]
"quoted.key" = 2
dotted . key = 3
arr = [
  1, # ]
  [2, 3],
  { in = 4 },
]
inline = { a = 1,
  b = { c = "}" } }
lit = '''
]'''
after = 5
[ui]
fps = 1
`
	want := map[string]int{
		"top": 2, "sandbox": 3, "sandbox[0]": 3, "sandbox[0].name": 4, "sandbox[0].s": 5,
		"sandbox[0].env": 8, "sandbox[0].env.A": 9, "sandbox[1]": 10, `sandbox[1]."quoted.key"`: 11,
		"sandbox[1].dotted": 12, "sandbox[1].dotted.key": 12, "sandbox[1].arr": 13, "sandbox[1].arr[0]": 14,
		"sandbox[1].arr[1]": 15, "sandbox[1].arr[1][0]": 15, "sandbox[1].arr[1][1]": 15,
		"sandbox[1].arr[2]": 16, "sandbox[1].arr[2].in": 16,
		"sandbox[1].inline": 18, "sandbox[1].inline.a": 18, "sandbox[1].inline.b": 19, "sandbox[1].inline.b.c": 19,
		"sandbox[1].lit": 20, "sandbox[1].after": 22, "ui": 23, "ui.fps": 24,
	}
	got := scanKeyLines([]byte(doc))
	if !reflect.DeepEqual(got, keyLines(want)) {
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: line %d, want %d", k, got[k], v)
			}
		}
		for k, v := range got {
			if _, ok := want[k]; !ok {
				t.Errorf("unexpected key %s at line %d", k, v)
			}
		}
	}
	if n := got.find("sandbox[1].missing"); n != 10 {
		t.Errorf("find falls back to the table's line: got %d, want 10", n)
	}
}
