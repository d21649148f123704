// Package reap owns what a sandmux server leaves behind when it dies
// without its teardown (SIGKILL, the OOM killer, a crash), and clearing it
// away: each server records itself in a file of its own under the state
// directory, keyed by its socket and locked for as long as it lives; the
// next server of the same socket finds the records whose lock is free and
// whose pid is gone, has each Reaper clear what that server made (its
// panes' cgroups, its labelled containers), and says in one line what it
// reaped (contract A5).
//
// Nothing of a live server is ever touched: a record is reaped only while
// this process holds its lock, which the kernel frees only when the
// process that took it has exited, and cgroups named by pid only once no
// process has that pid. Servers of other sockets are not looked at.
//
// It does not own how a cgroup is killed or a container removed (the
// providers do, through Reaper), nor where the state directory is
// (package main passes it).
//
//	serve ─► endpoint.Listen ─► Register(dir, record) ─┬─► own Claim, locked until Release
//	                                                  └─► dead records ─► Reap ─► one log line
package reap

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// Record is what one server wrote about itself for whoever reaps after it.
type Record struct {
	// Socket is the server's socket; only a server of the same one reaps.
	Socket string `json:"socket"`
	// PID is the server's process, which names its pane cgroups.
	PID int `json:"pid"`
	// Instance is unique to the server: the value of the label on the
	// containers it creates.
	Instance string `json:"instance"`
	// Cgroups is the cgroup its pane cgroups are made in ("" when it
	// could make none).
	Cgroups string `json:"cgroups,omitempty"`
	// Engines are the Docker engines it may create containers on.
	Engines []string `json:"engines,omitempty"`
}

// NewInstance is a fresh value unique to one server.
func NewInstance() string { return rand.Text()[:16] }

// Claim is a server's own record, locked while it lives.
type Claim struct {
	f *os.File
}

// Dead is the record of a server that died without its teardown, locked
// by this process while it is reaped.
type Dead struct {
	Record
	f *os.File
}

// Register writes rec as this server's record under dir (the state
// directory's "servers" directory, say), keyed by rec.Socket, locked for
// as long as this process lives or until Release, and returns the
// records of the servers of the same socket that died without releasing
// theirs, each locked by this process until Done. The caller must serve
// rec.Socket already (endpoint.Listen), so no other live server of it is
// starting.
func Register(dir string, rec Record) (*Claim, []*Dead, error) {
	for try := 1; ; try++ {
		claim, dead, err := register(filepath.Join(dir, socketKey(rec.Socket)), rec)
		// The socket's directory went while this server read it: the
		// server of the socket before this one released its record last
		// (Release). A fresh directory is made for this one.
		if errors.Is(err, fs.ErrNotExist) && try < registerTries {
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("record this server for whoever starts after it: %w", err)
		}
		return claim, dead, nil
	}
}

// registerTries bounds Register's attempts, each after a Release that
// emptied the socket's directory while it was read. Only the server of
// the socket before this one can release meanwhile, so two attempts
// always do; the third is a margin, not a loop.
const registerTries = 3

// beforeCreate runs between finding the dead records and writing this
// server's own: a gate for the tests.
var beforeCreate = func() {}

func register(key string, rec Record) (*Claim, []*Dead, error) {
	if err := os.MkdirAll(key, 0o700); err != nil {
		return nil, nil, err
	}
	dead, err := findDead(key, rec.Socket)
	if err != nil {
		return nil, nil, err
	}
	beforeCreate()
	f, err := lockedFile(filepath.Join(key, rec.Instance+".json"), unix.O_CREAT|unix.O_EXCL)
	if err == nil {
		if err = writeRecord(f, rec); err != nil {
			_ = os.Remove(f.Name()) // Best effort: a record half written is dropped by the next server.
			_ = f.Close()
		}
	}
	if err != nil {
		for _, d := range dead {
			d.Done(false)
		}
		return nil, nil, err
	}
	return &Claim{f: f}, dead, nil
}

// Release removes the record once the server's teardown has finished:
// nothing is left to reap. The socket's directory goes with its last
// record, so that one server name after another (a script's, a test's)
// leaves no directory behind; removing one that holds another record
// fails, harmlessly.
func (c *Claim) Release() error {
	err := os.Remove(c.f.Name())
	_ = os.Remove(filepath.Dir(c.f.Name())) // Best effort: another server's record keeps it.
	return errors.Join(err, c.f.Close())
}

// Done ends the reaping of d: its record is removed when cleared (all
// reaped), else kept for the next server to try again, and unlocked.
func (d *Dead) Done(cleared bool) {
	if cleared {
		_ = os.Remove(d.f.Name()) // Best effort: a record left is reaped again, harmlessly.
	}
	_ = d.f.Close() // Best effort: closing releases the lock.
}

// socketKey is the directory name of a socket's records: one socket path
// is one server name.
func socketKey(socket string) string {
	sum := sha256.Sum256([]byte(socket))
	return hex.EncodeToString(sum[:8])
}

// findDead locks every record in key that no live process holds, and
// returns those of socket.
func findDead(key, socket string) ([]*Dead, error) {
	ents, err := os.ReadDir(key)
	if err != nil {
		return nil, fmt.Errorf("look for servers that died: %w", err)
	}
	var dead []*Dead
	for _, e := range ents {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		f, err := lockedFile(filepath.Join(key, e.Name()), 0)
		if err != nil {
			continue // held by a live server, or gone meanwhile
		}
		var rec Record
		if err := json.NewDecoder(f).Decode(&rec); err != nil || rec.Socket != socket || rec.PID <= 0 {
			// Half written by a server killed while writing it: nothing
			// of it can be known, and its lock says it is gone.
			(&Dead{f: f}).Done(true)
			continue
		}
		dead = append(dead, &Dead{Record: rec, f: f})
	}
	return dead, nil
}

// lockedFile opens path (never through a link) and takes its lock
// without waiting; a lock held elsewhere is an error.
func lockedFile(path string, flags int) (*os.File, error) {
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_NOFOLLOW|unix.O_CLOEXEC|flags, 0o600)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	if err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB); err != nil {
		_ = f.Close() // Best effort: never locked.
		return nil, &os.PathError{Op: "lock", Path: path, Err: err}
	}
	return f, nil
}

func writeRecord(f *os.File, rec Record) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		return err
	}
	return f.Sync()
}

// Reaper clears one kind of thing a dead server left, returning what it
// cleared in words ("1 container (sandmux-x-1)"), or nothing.
type Reaper func(ctx context.Context, dead Record) (cleared []string, err error)

// Reap runs every reaper on each dead server's record and returns one
// line per dead server saying what was reaped, and the errors of what
// could not be. A record is kept for the
// next server when a reaper failed.
func Reap(ctx context.Context, dead []*Dead, reapers ...Reaper) (lines []string, err error) {
	var errs []error
	for _, d := range dead {
		var what []string
		failed := false
		for _, r := range reapers {
			cleared, err := r(ctx, d.Record)
			what = append(what, cleared...)
			if err != nil {
				failed = true
				errs = append(errs, fmt.Errorf("reap what the server (pid %d) at %s left: %w", d.PID, d.Socket, err))
			}
		}
		d.Done(!failed)
		if len(what) == 0 {
			what = []string{"nothing was left running"}
		}
		lines = append(lines, fmt.Sprintf("reaped what the server (pid %d) at %s left when it died: %s", d.PID, d.Socket, strings.Join(what, "; ")))
	}
	return lines, errors.Join(errs...)
}
