package config

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/sandmux/sandmux/record"
)

func TestParseByteSize(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"16MiB", 16 << 20, true},
		{"256MiB", 256 << 20, true},
		{"1.5GiB", 3 << 29, true},
		{"512K", 512 << 10, true},
		{"512KiB", 512 << 10, true},
		{"1MB", 1e6, true},
		{"4096", 4096, true},
		{"0", 0, true},
		{" 2 MiB ", 2 << 20, true},
		{"", 0, false},
		{"MiB", 0, false},
		{"-1MiB", 0, false},
		{"1e9", 0, false},
		{"0x10", 0, false},
		{"NaN", 0, false},
		{"Inf", 0, false},
		{"9999999999GiB", 0, false},
		{"16 potatoes", 0, false},
	} {
		got, err := ParseByteSize(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseByteSize(%q) = %d, %v; want %d, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func FuzzParseByteSize(f *testing.F) {
	for _, s := range []string{"16MiB", "1.5GiB", "0", "-1", "1e400", "NaN"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseByteSize(s)
		if err != nil {
			return
		}
		if n < 0 {
			t.Fatalf("ParseByteSize(%q) = %d: negative", s, n)
		}
		if back, err := ParseByteSize(FormatByteSize(n)); err != nil || back != n {
			t.Fatalf("FormatByteSize(%d) = %q reads back as %d, %v", n, FormatByteSize(n), back, err)
		}
	})
}

func TestConfigRecord(t *testing.T) {
	dir := hermetic(t)
	c, err := parseConfig(filepath.Join(dir, "sandmux.toml"), []byte("[[sandbox]]\nname = \"a\"\n[record]\nretain = \"0\"\nretain_bytes = \"1MiB\"\ndir = \"casts\"\nidle_limit = \"2s\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := RecordConfig{Retain: 0, RetainBytes: 1 << 20, RetainTotal: 16 << 20, Spill: true, Dir: filepath.Join(dir, "casts"), IdleLimit: 2 * time.Second}
	if c.Record != want {
		t.Errorf("got %+v, want %+v", c.Record, want)
	}
	if d, err := c.Record.RecordDir(); err != nil || d != want.Dir {
		t.Errorf("RecordDir = %q, %v", d, err)
	}
	c.Record.Dir = ""
	if d, err := c.Record.RecordDir(); err != nil || d != filepath.Join(dir, ".local", "share", "sandmux", "recordings") {
		t.Errorf("default RecordDir = %q, %v", d, err)
	}
}

// The config's defaults are the ring's own, so a ring made without a
// config (a test, play) keeps what a server keeps.
func TestConfigRecordDefaultsAreTheRings(t *testing.T) {
	c, err := parseConfig("sandmux.toml", []byte("[[sandbox]]\nname = \"a\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Record.Retain != record.DefaultRetain || int(c.Record.RetainBytes) != record.DefaultRetainBytes {
		t.Errorf("[record] defaults retain %v, retain_bytes %d; the ring's are %v, %d",
			c.Record.Retain, c.Record.RetainBytes, record.DefaultRetain, record.DefaultRetainBytes)
	}
	if c.Record.RetainTotal < c.Record.RetainBytes {
		t.Errorf("default retain_total %d is less than retain_bytes %d", c.Record.RetainTotal, c.Record.RetainBytes)
	}
}
