package config

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/sandmux/sandmux/xdg"
)

// RecordConfig is [record]: the ring every pane keeps of its last
// minutes, for save-last, and where recordings go.
type RecordConfig struct {
	// Retain is how far back each pane's ring keeps output; 0 turns the
	// rings off.
	Retain time.Duration
	// RetainBytes bounds one pane's ring, RetainTotal all of them.
	RetainBytes, RetainTotal int64
	// Spill keeps each ring's packed past in an unnamed file in the state
	// directory rather than in memory.
	Spill bool
	// Dir is where recordings and saved windows go; "" is
	// $XDG_DATA_HOME/sandmux/recordings (RecordDir resolves it).
	Dir string
	// IdleLimit shortens every pause of a recording longer than it; 0
	// keeps them.
	IdleLimit time.Duration
}

// maxRetainBytes bounds the ring sizes: 64 GiB is more memory than the
// rings should ever be given, and far from overflowing an int.
const maxRetainBytes = 64 << 30

// The rings' defaults are sized for many busy panes: 48 agents each
// scrolling 20 KB/s filled 40 MiB of rings in their five minutes, which
// with the server's own memory came to more than twice what tmux holds
// for them; 16 MiB keeps five minutes of some 19 such panes, or the last
// minute and a half of each of 48. retain_bytes is the ring's own
// default (record.DefaultRetainBytes).
var recordOptions = []option[RecordConfig]{
	{table: "record", key: "retain", def: "5m",
		help: `How far back each pane keeps its output, for save-last (prefix S, ctl save-last); "0" keeps none.`,
		kind: durationKind(func(r *RecordConfig) *time.Duration { return &r.Retain }, 0, 24*time.Hour)},
	{table: "record", key: "retain_bytes", def: "4MiB",
		help: `How much one pane's kept output may take, such as "4MiB"; the oldest goes first.`,
		kind: byteSizeKind(func(r *RecordConfig) *int64 { return &r.RetainBytes }, 64<<10)},
	{table: "record", key: "retain_total", def: "16MiB",
		help: `How much every pane's kept output may take together; the oldest of all goes first.`,
		kind: byteSizeKind(func(r *RecordConfig) *int64 { return &r.RetainTotal }, 64<<10)},
	{table: "record", key: "spill", def: true,
		help: `Keeps each pane's kept output, once packed, on disk rather than in memory: in a file with no name in the state directory ($XDG_STATE_HOME/sandmux), gone with its pane; false keeps it in memory.`,
		kind: boolKind(func(r *RecordConfig) *bool { return &r.Spill })},
	{table: "record", key: "dir", def: "",
		help: `Where recordings (prefix R, ctl record) and saved windows go; "" is $XDG_DATA_HOME/sandmux/recordings.`,
		kind: stringKind(func(r *RecordConfig) *string { return &r.Dir }, nil)},
	{table: "record", key: "idle_limit", def: "0s",
		help: `Shortens every pause of a recording longer than it to it; "0s" keeps pauses as they were.`,
		kind: durationKind(func(r *RecordConfig) *time.Duration { return &r.IdleLimit }, 0, 24*time.Hour)},
}

func byteSizeKind[T any](field func(*T) *int64, lo int64) kind[T] {
	return kind[T]{
		typ: `size, such as "16MiB"`,
		set: func(t *T, v any) error {
			s, ok := v.(string)
			n, err := ParseByteSize(s)
			if !ok || err != nil {
				return fmt.Errorf(`%s is not a size (write e.g. "16MiB", "512KiB" or "1GiB", in double quotes)`, literal(v))
			}
			*field(t) = n
			return nil
		},
		check: func(t *T) error {
			if n := *field(t); n < lo || n > maxRetainBytes {
				return fmt.Errorf("%s is out of range (use %s to %s)", FormatByteSize(n), FormatByteSize(lo), FormatByteSize(maxRetainBytes))
			}
			return nil
		},
		get: func(t *T) any { return *field(t) },
	}
}

var byteUnits = []struct {
	suffix string
	n      int64
}{
	{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10},
	{"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"kB", 1e3},
	{"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"k", 1 << 10}, {"B", 1},
}

// ParseByteSize reads a size such as "16MiB", "1.5GiB", "512K" or "4096"
// (bytes). It refuses negative sizes and sizes past an int64.
func ParseByteSize(s string) (int64, error) {
	num, unit := strings.TrimSpace(s), int64(1)
	for _, u := range byteUnits {
		if strings.HasSuffix(num, u.suffix) {
			num, unit = strings.TrimSpace(strings.TrimSuffix(num, u.suffix)), u.n
			break
		}
	}
	if num == "" || strings.ContainsAny(num, "eEpPxX_+-") {
		return 0, errors.New("not a size")
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(f) || f < 0 || f*float64(unit) >= math.MaxInt64 {
		return 0, errors.New("not a size")
	}
	return int64(f * float64(unit)), nil
}

// FormatByteSize writes n as ParseByteSize reads it, in the largest
// binary unit that divides it.
func FormatByteSize(n int64) string {
	for _, u := range []struct {
		suffix string
		n      int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n != 0 && n%u.n == 0 {
			return strconv.FormatInt(n/u.n, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}

// checkRecord checks [record] as a whole and makes dir absolute (~/ is
// expanded; a relative dir is relative to the config file).
func (c *Config) checkRecord(p *problems) {
	for _, o := range recordOptions {
		checkOption(p, "record."+o.key, o, &c.Record)
	}
	r := &c.Record
	if r.Retain > 0 && r.RetainTotal < r.RetainBytes {
		p.add("record.retain_total", fmt.Errorf("%s is less than retain_bytes (%s): one pane could not keep what retain_bytes lets it", FormatByteSize(r.RetainTotal), FormatByteSize(r.RetainBytes)))
	}
	if r.Dir == "" {
		return
	}
	d := r.Dir
	switch {
	case d == "~" || strings.HasPrefix(d, "~/"):
		home, err := os.UserHomeDir()
		if err != nil {
			p.add("record.dir", fmt.Errorf("expand ~: %w (set HOME, or write an absolute path)", err))
			return
		}
		d = filepath.Join(home, d[1:])
	case strings.HasPrefix(d, "~"):
		p.add("record.dir", fmt.Errorf("%s: only ~/ is expanded (write an absolute path, or one starting with ~/)", literal(d)))
		return
	}
	if !filepath.IsAbs(d) {
		d = filepath.Join(filepath.Dir(c.Source), d)
		if abs, err := filepath.Abs(d); err == nil {
			d = abs
		}
	}
	r.Dir = filepath.Clean(d)
}

// RecordDir is where recordings go: [record] dir, else
// $XDG_DATA_HOME/sandmux/recordings.
func (r RecordConfig) RecordDir() (string, error) {
	if r.Dir != "" {
		return r.Dir, nil
	}
	dir, err := xdg.Data()
	if err != nil {
		return "", fmt.Errorf("no directory for recordings: %w (set HOME or XDG_DATA_HOME, or write [record] dir)", err)
	}
	return filepath.Join(dir, "recordings"), nil
}
