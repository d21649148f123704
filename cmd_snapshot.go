package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/sandmux/sandmux/config"
	"github.com/sandmux/sandmux/providers/all"
	"github.com/sandmux/sandmux/providers/local"
	"github.com/sandmux/sandmux/snapshot"
	"github.com/sandmux/sandmux/termsafe"
)

const snapshotHelp = `usage:
  sandmux snapshot save DIR -o FILE [--exclude PATTERN]...
  sandmux snapshot save DIR --sandbox NAME [--store DIR] [--keep N] [--exclude PATTERN]...
  sandmux snapshot restore FILE DIR [--replace] [--max-bytes N] [--max-members N]
  sandmux snapshot ls [-c FILE] [--store DIR] [SANDBOX]
  sandmux snapshot verify FILE [--max-bytes N] [--max-members N]

save writes DIR as a zstd-compressed tar with a manifest beside it (FILE.json),
atomically: FILE appears only complete. restore unpacks into a missing or empty
DIR (or, with --replace, swaps out DIR's contents), only if every member passes
the safety rules. verify reads the whole archive and checks it without writing.
The store is $XDG_STATE_HOME/sandmux/snapshots unless --store says otherwise.
`

// runSnapshot is `sandmux snapshot`: save, restore, list and verify
// workspace archives by hand, with the rules the TUI's snapshots follow.
// Names, paths and errors it prints come from workspaces, archives and the
// store: they are printed through termsafe, never raw.
func runSnapshot(ctx context.Context, args []string, s stdio) int {
	if len(args) == 0 {
		fmt.Fprint(s.err, snapshotHelp)
		return exitUsage
	}
	sub := map[string]func(context.Context, []string, stdio) int{
		"save": snapshotSave, "restore": snapshotRestore, "ls": snapshotList, "verify": snapshotVerify,
	}[args[0]]
	switch {
	case sub != nil:
		ctx, _, stop := signalContext(ctx)
		defer stop()
		return sub(ctx, args[1:], s)
	case args[0] == "help" || args[0] == "-h" || args[0] == "--help":
		fmt.Fprint(s.out, snapshotHelp)
		return exitOK
	}
	fmt.Fprintf(s.err, "sandmux snapshot: unknown command %q\n%s", args[0], snapshotHelp)
	return exitUsage
}

// snapshotFlags parses flags placed anywhere among the arguments (save DIR
// -o FILE) and checks that there are between least and most positional
// arguments, named by want. A code of -1 means go on.
func snapshotFlags(fs *flag.FlagSet, args []string, s stdio, want string, least, most int) ([]string, int) {
	fs.SetOutput(termsafe.NewWriter(s.err)) // flag prints a refused argument raw
	fs.Usage = func() { fmt.Fprint(s.err, snapshotHelp) }
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, exitOK
			}
			return nil, exitUsage
		}
		if fs.NArg() == 0 {
			break
		}
		pos, args = append(pos, fs.Arg(0)), fs.Args()[1:]
	}
	if len(pos) < least || len(pos) > most {
		fmt.Fprintf(s.err, "sandmux snapshot %s: want %s, got %d argument(s)\n%s", fs.Name(), want, len(pos), snapshotHelp)
		return nil, exitUsage
	}
	return pos, -1
}

type patterns []string

func (p *patterns) String() string     { return strings.Join(*p, ",") }
func (p *patterns) Set(v string) error { *p = append(*p, v); return nil }

func snapshotSave(ctx context.Context, args []string, s stdio) int {
	fs := flag.NewFlagSet("save", flag.ContinueOnError)
	out := fs.String("o", "", "write the archive to `FILE`")
	sandbox := fs.String("sandbox", "", "save into the store as a snapshot of sandbox `NAME`")
	store := fs.String("store", "", "the store's root `DIR`")
	keep := fs.Int("keep", snapshot.DefaultKeep, "snapshots to keep per sandbox in the store")
	var exclude patterns
	fs.Var(&exclude, "exclude", "leave out paths matching `PATTERN` (gitignore style; repeatable)")
	pos, code := snapshotFlags(fs, args, s, "DIR", 1, 1)
	if code >= 0 {
		return code
	}
	if (*out == "") == (*sandbox == "") {
		fmt.Fprintf(s.err, "sandmux snapshot save: give -o FILE or --sandbox NAME (one of them)\n%s", snapshotHelp)
		return exitUsage
	}
	opts := snapshot.SaveOptions{Exclude: exclude, Provider: local.Descriptor.Name, OnProgress: progressPrinter(s.err)}
	var m *snapshot.Manifest
	path := *out
	var err error
	if *sandbox != "" {
		st, serr := openStore(*store)
		if serr != nil {
			termsafe.Fprintln(s.err, "sandmux snapshot save:", serr)
			return exitFailure
		}
		st.Keep = *keep
		var e snapshot.Entry
		e, err = st.Save(ctx, *sandbox, snapshot.DirSource(pos[0]), opts)
		m, path = e.Manifest, e.Path
	} else {
		m, err = snapshot.Save(ctx, snapshot.DirSource(pos[0]), path, opts)
		if err == nil {
			rememberElsewhere(*store, path, s)
		}
	}
	if err != nil {
		termsafe.Fprintf(s.err, "sandmux snapshot save: %v\n", err)
		if ctx.Err() != nil {
			fmt.Fprintln(s.err, "nothing was written: an earlier archive of that name is unchanged")
		}
		return exitFailure
	}
	termsafe.Fprintf(s.out, "saved %s to %s: %d files, %s -> %s, sha256 %s\n",
		pos[0], path, m.Files, snapshot.FormatBytes(m.Bytes), snapshot.FormatBytes(m.ArchiveSize), m.SHA256)
	for i, n := range m.Notes {
		if i == 10 {
			termsafe.Fprintf(s.out, "  ... %d more in %s\n", m.NoteCount-i, snapshot.ManifestPath(path))
			break
		}
		// The reason is a message that may quote the name's link target.
		fmt.Fprintf(s.out, "  left out %s: %s\n", termsafe.String(n.Path), termsafe.Message(n.Reason))
	}
	return exitOK
}

func limitFlags(fs *flag.FlagSet) func() (snapshot.Limits, error) {
	maxBytes := fs.String("max-bytes", "4GiB", "refuse archives with more file content than `N` (bytes, or with KiB, MiB, GiB)")
	maxMembers := fs.Int("max-members", snapshot.DefaultMaxMembers, "refuse archives with more than `N` members")
	return func() (snapshot.Limits, error) {
		// The config's sizes, as [record] writes them; no archive is
		// smaller than nothing.
		b, err := config.ParseByteSize(*maxBytes)
		if err != nil || b <= 0 {
			return snapshot.Limits{}, fmt.Errorf("--max-bytes: %q is not a size: write e.g. 4GiB or 1048576", *maxBytes)
		}
		return snapshot.Limits{MaxBytes: b, MaxMembers: *maxMembers}, nil
	}
}

func snapshotRestore(ctx context.Context, args []string, s stdio) int {
	fs := flag.NewFlagSet("restore", flag.ContinueOnError)
	replace := fs.Bool("replace", false, "replace the contents of a non-empty DIR")
	limits := limitFlags(fs)
	pos, code := snapshotFlags(fs, args, s, "FILE DIR", 2, 2)
	if code >= 0 {
		return code
	}
	lim, err := limits()
	if err != nil {
		termsafe.Fprintln(s.err, "sandmux snapshot restore:", err)
		return exitUsage
	}
	r, err := snapshot.Restore(ctx, pos[0], pos[1], snapshot.RestoreOptions{Replace: *replace, Limits: lim, OnProgress: progressPrinter(s.err)})
	if err != nil {
		termsafe.Fprintf(s.err, "sandmux snapshot restore: %v\n", err)
		printNextStep(s.err, err, pos[1])
		return exitFailure
	}
	termsafe.Fprintf(s.out, "restored %s into %s: %d files, %d directories, %d symlinks, %s\n",
		pos[0], pos[1], r.Files, r.Dirs, r.Symlinks, snapshot.FormatBytes(r.Bytes))
	for _, w := range r.Warnings {
		fmt.Fprintln(s.err, "warning:", termsafe.Message(w))
	}
	return exitOK
}

func snapshotVerify(ctx context.Context, args []string, s stdio) int {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	limits := limitFlags(fs)
	pos, code := snapshotFlags(fs, args, s, "FILE", 1, 1)
	if code >= 0 {
		return code
	}
	lim, err := limits()
	if err != nil {
		termsafe.Fprintln(s.err, "sandmux snapshot verify:", err)
		return exitUsage
	}
	r, err := snapshot.Verify(ctx, pos[0], snapshot.VerifyOptions{Limits: lim, OnProgress: progressPrinter(s.err)})
	if err != nil {
		termsafe.Fprintf(s.err, "sandmux snapshot verify: %v\n", err)
		printNextStep(s.err, err, "")
		return exitFailure
	}
	termsafe.Fprintf(s.out, "ok: %s: %s, %d files, %d directories, %d symlinks, %s\n",
		pos[0], r.Format, r.Files, r.Dirs, r.Symlinks, snapshot.FormatBytes(r.Bytes))
	if r.Manifest != nil {
		termsafe.Fprintf(s.out, "matches its manifest (sha256 %s, sandbox %q, created %s)\n",
			r.SHA256, r.Manifest.Sandbox, r.Manifest.Created.Local().Format(time.DateTime))
	} else {
		termsafe.Fprintf(s.out, "no manifest beside it (%s): every member was checked, the checksum could not be\n", snapshot.ManifestPath(pos[0]))
	}
	return exitOK
}

// printNextStep tells the user what to do about a failed restore or verify.
func printNextStep(w io.Writer, err error, dir string) {
	switch {
	case errors.Is(err, snapshot.ErrNotEmpty):
		fmt.Fprintln(w, "pass --replace to swap out its contents, or restore into a new directory")
	case errors.Is(err, snapshot.ErrUnsafe):
		fmt.Fprintln(w, "the archive is unsafe and was not unpacked; check where it came from")
	case errors.Is(err, snapshot.ErrLimit):
		fmt.Fprintln(w, "if you trust the archive, raise --max-bytes or --max-members")
	case errors.Is(err, snapshot.ErrCorrupt), errors.Is(err, snapshot.ErrChecksum):
		fmt.Fprintln(w, "the archive is damaged; use an older snapshot (sandmux snapshot ls)")
	case dir != "":
		termsafe.Fprintf(w, "%s is unchanged\n", dir)
	}
}

func snapshotList(_ context.Context, args []string, s stdio) int {
	fs := flag.NewFlagSet("ls", flag.ContinueOnError)
	storeDir := fs.String("store", "", "the store's root `DIR`")
	cfgPath := fs.String("c", "", "list the snapshots of the sandboxes of config `FILE` only")
	pos, code := snapshotFlags(fs, args, s, "at most one SANDBOX", 0, 1)
	if code >= 0 {
		return code
	}
	st, err := openStore(*storeDir)
	if err != nil {
		termsafe.Fprintln(s.err, "sandmux snapshot ls:", err)
		return exitFailure
	}
	sandbox := ""
	if len(pos) == 1 {
		sandbox = pos[0]
	}
	entries, err := st.List(sandbox)
	if err != nil {
		termsafe.Fprintln(s.err, "sandmux snapshot ls:", err)
		return exitFailure
	}
	if elsewhere, err := st.Elsewhere(); err != nil {
		termsafe.Fprintln(s.err, "sandmux snapshot ls: warning:", err)
	} else {
		for _, e := range elsewhere {
			if sandbox == "" || e.Sandbox == sandbox {
				entries = append(entries, e)
			}
		}
	}
	if *cfgPath != "" {
		cfg, err := config.Load(*cfgPath, all.Registry)
		if err != nil {
			termsafe.Fprintln(s.err, "sandmux snapshot ls:", err)
			return exitFailure
		}
		entries = configEntries(cfg, entries)
	}
	if len(entries) == 0 {
		termsafe.Fprintf(s.err, "no snapshots in %s\n", st.Root)
		return exitOK
	}
	if err := printEntries(s.out, entries); err != nil {
		return exitFailure
	}
	return exitOK
}

// printEntries writes the snapshot table, one entry a row, each name and
// path escaped: they come from the store's files.
func printEntries(out io.Writer, entries []snapshot.Entry) error {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SANDBOX\tTIME\tSIZE\tFILES\tPATH")
	for _, e := range entries {
		files := "?"
		if e.Manifest != nil {
			files = strconv.FormatInt(e.Manifest.Files, 10)
		}
		name := e.Sandbox
		if name == "" {
			name = "-"
		}
		termsafe.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", name, e.Time.Local().Format("2006-01-02 15:04:05.000"), snapshot.FormatBytes(e.Size), files, e.Path)
	}
	return tw.Flush()
}

// configEntries keeps the entries of the config's sandboxes.
func configEntries(cfg *config.Config, entries []snapshot.Entry) []snapshot.Entry {
	names := map[string]bool{}
	for _, sb := range cfg.Sandboxes {
		names[sb.Name] = true
	}
	kept := entries[:0]
	for _, e := range entries {
		if names[e.Sandbox] {
			kept = append(kept, e)
		}
	}
	return kept
}

func openStore(root string) (*snapshot.Store, error) {
	if root == "" {
		var err error
		if root, err = snapshot.DefaultRoot(); err != nil {
			return nil, err
		}
	}
	return &snapshot.Store{Root: root}, nil
}

// progressPrinter shows progress on one rewritten line when w is a
// terminal, and nothing otherwise (logs and pipes get the summary only).
func progressPrinter(w io.Writer) func(snapshot.Progress) {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	if fi, err := f.Stat(); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return func(p snapshot.Progress) {
		path := termsafe.String(p.Path)
		if len(path) > 50 {
			cut := len(path) - 47
			for cut < len(path) && !utf8.RuneStart(path[cut]) {
				cut++
			}
			path = "..." + path[cut:]
		}
		// The line erase is sandmux's own; only the path came from outside.
		fmt.Fprintf(f, "\r\x1b[K%d files, %s  %s", p.Files, snapshot.FormatBytes(p.Bytes), path)
		if p.Done {
			fmt.Fprint(f, "\r\x1b[K")
		}
	}
}

// rememberElsewhere records an archive written with -o in the store, so
// that snapshot ls lists it; failing to is said, not fatal: the archive
// itself is written.
func rememberElsewhere(storeDir, path string, s stdio) {
	st, err := openStore(storeDir)
	if err == nil {
		err = st.Remember(path)
	}
	if err != nil {
		termsafe.Fprintln(s.err, "sandmux snapshot save: warning: snapshot ls will not list it:", err)
	}
}
