// Package pagetrim lets go of the pages of this process's executable and
// libraries that it touched while starting and touches no more.
//
// A Go program's first steps (every package's initialisers, the runtime's
// check of its function table, flag and config parsing, a provider's
// setup) touch code and constant data all over the binary, and the
// kernel maps 64 KiB around each touch. A sandmux client had 12 MB of its
// 21 MB binary mapped once attached, and 1.2 MB of the C library the
// runtime starts through, then did nothing but wait; top counts all of
// it in its resident memory. Drop advises the kernel that the process no
// longer needs its read-only mappings of files: their pages leave its
// resident set, stay in the page cache, shared with every other process
// mapping them, and the few the process goes on using are mapped back
// in on their next touch, a minor fault each.
//
// It owns that advice and nothing else. It never touches a writable
// mapping, nor a read-only one holding pages of the process's own (a
// relocated table, a debugger's breakpoint): the file does not have
// their contents, and advising them away would lose them. It knows
// nothing of when a process is done starting; its callers say so. Drop
// does nothing outside Linux.
package pagetrim

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// span is one mapping Drop would advise: [start, end), and how much of it
// was resident.
type span struct {
	start, end uintptr
	rss        int64 // bytes
}

// plan reads smaps text (the format of /proc/self/smaps) and returns the
// mappings Drop may advise: of a file, read-only, private, and with no
// anonymous page (a private copy the file does not hold).
func plan(r io.Reader) ([]span, error) {
	var (
		spans []span
		cur   *span // the mapping being read, nil when it is not a candidate
	)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if m, ok := header(line); ok {
			if cur != nil {
				spans = append(spans, *cur)
			}
			cur = nil
			if m.inode != 0 && m.readOnlyPrivate() {
				cur = &span{start: m.start, end: m.end}
			}
			continue
		}
		if cur == nil {
			continue
		}
		key, kb, ok := field(line)
		switch {
		case !ok:
		case key == "Rss":
			cur.rss = kb << 10
		case key == "Anonymous" && kb != 0:
			cur = nil // private copies: the file does not hold them
		}
	}
	if cur != nil {
		spans = append(spans, *cur)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("pagetrim: reading the process's mappings: %w", err)
	}
	return spans, nil
}

// mapping is one header line of smaps:
// "start-end perms offset dev inode [path]".
type mapping struct {
	start, end uintptr
	perms      string
	inode      uint64 // 0: no file ([heap], [stack], [vdso], anonymous)
}

// header parses line as a mapping's header; ok is false for a field line
// ("Rss:   12 kB") or anything it cannot read.
func header(line []byte) (mapping, bool) {
	f := strings.Fields(string(line))
	if len(f) < 5 || strings.HasSuffix(f[0], ":") {
		return mapping{}, false
	}
	lo, hi, ok := strings.Cut(f[0], "-")
	if !ok {
		return mapping{}, false
	}
	start, err1 := strconv.ParseUint(lo, 16, 64)
	end, err2 := strconv.ParseUint(hi, 16, 64)
	inode, err3 := strconv.ParseUint(f[4], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || end <= start || len(f[1]) != 4 {
		return mapping{}, false
	}
	return mapping{start: uintptr(start), end: uintptr(end), perms: f[1], inode: inode}, true
}

// readOnlyPrivate: readable, neither writable nor shared (a shared
// mapping's pages are the file's anyway, but no library is mapped so).
func (m mapping) readOnlyPrivate() bool {
	return m.perms[0] == 'r' && m.perms[1] == '-' && m.perms[3] == 'p'
}

// field parses a field line of smaps, "Key:   N kB", into its key and N.
func field(line []byte) (key string, kb int64, ok bool) {
	k, rest, found := bytes.Cut(line, []byte(":"))
	if !found {
		return "", 0, false
	}
	f := bytes.Fields(rest)
	if len(f) != 2 || string(f[1]) != "kB" {
		return "", 0, false
	}
	n, err := strconv.ParseInt(string(f[0]), 10, 64)
	if err != nil {
		return "", 0, false
	}
	return string(k), n, true
}
