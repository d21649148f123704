// Package workspace is sandmux's workspace policy: it joins a sandbox's
// workspace to the snapshot store, restoring the newest snapshot before a
// start and taking one after teardown, each as the sandbox's config says,
// reading and writing the workspace as a directory here or through the
// provider's tar streams as the provider's descriptor says.
//
// It owns those decisions only: the archive format and the store are
// snapshot's, when a teardown runs the hook is session's, and main wires a
// Policy into each pane. It must not import ui or main's commands.
package workspace

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/sandmux/sandmux/config"
	"github.com/sandmux/sandmux/providers"
	"github.com/sandmux/sandmux/session"
	"github.com/sandmux/sandmux/snapshot"
)

// Policy wires a sandbox's workspace to the snapshot store: restore
// before start, snapshot after teardown, each as its policies say.
type Policy struct {
	// Store is the snapshot store's root.
	Store string
	// Providers are the providers that sessions are opened with, for their
	// Workspace streams.
	Providers providers.Table
	// Registry says where each provider's workspaces are.
	Registry providers.Registry
}

// StoreFor returns the store of sb's snapshots, keeping as many as it asks.
func (w Policy) StoreFor(sb config.Sandbox) *snapshot.Store {
	return &snapshot.Store{Root: w.Store, Keep: sb.SnapshotKeep}
}

// localDir reports whether sb's workspace is a directory on this machine,
// to be created before a start, as its provider's descriptor says: always
// for local, and for exec when sandmux chose it (an exec workspace the
// config writes is a path on the far side, left alone).
func (w Policy) localDir(sb config.Sandbox) bool {
	d, ok := w.Registry.Lookup(sb.Provider)
	return ok && d.LocalWorkspace(sb.WorkspaceChosen)
}

// exporter returns the provider's workspace access, if it has one; a local
// sandbox's workspace is a directory here.
func (w Policy) exporter(sb config.Sandbox) providers.Workspace {
	p, err := w.Providers.Lookup(sb.Provider)
	if err != nil {
		return nil
	}
	ws, _ := p.(providers.Workspace)
	return ws
}

// source is where a snapshot of sb reads the workspace from.
func (w Policy) source(sb config.Sandbox) (snapshot.Source, error) {
	if w.localDir(sb) {
		if _, err := os.Stat(sb.Workspace); err != nil {
			return nil, fmt.Errorf("no workspace to snapshot: %w", err)
		}
		return snapshot.DirSource(sb.Workspace), nil
	}
	ws := w.exporter(sb)
	if ws == nil {
		return nil, fmt.Errorf("provider %q cannot read workspaces: set snapshot = \"never\" for %q", sb.Provider, sb.Name)
	}
	spec := sb.Spec()
	return snapshot.TarSource(func(ctx context.Context, out io.Writer) error { return ws.ExportWorkspace(ctx, spec, out) }), nil
}

// Hook returns the after-teardown hook that snapshots sb when its policy
// asks for the reason of this teardown, or nil when it never does. It
// runs only once the session's processes are gone (contract C11).
func (w Policy) Hook(sb config.Sandbox) func(context.Context, session.Info, func(string)) (string, error) {
	if sb.Snapshot == config.SnapshotNever {
		return nil
	}
	return func(ctx context.Context, info session.Info, stage func(string)) (string, error) {
		wanted := sb.Snapshot.OnClose()
		if info.Reason == session.ReasonShutdown {
			wanted = sb.Snapshot.OnQuit()
		}
		if !wanted {
			return "", nil
		}
		src, err := w.source(sb)
		if err != nil {
			return "", fmt.Errorf("snapshot %q: %w", sb.Name, err)
		}
		stage("snapshot: starting")
		e, err := w.StoreFor(sb).Save(ctx, sb.Name, src, snapshot.SaveOptions{
			Provider: sb.Provider, Exclude: sb.SnapshotExclude,
			OnProgress: func(p snapshot.Progress) {
				stage(fmt.Sprintf("snapshot: %d files, %s", p.Files, snapshot.FormatBytes(p.Bytes)))
			},
		})
		if err != nil {
			return "", fmt.Errorf("snapshot %q: %w", sb.Name, err)
		}
		return e.Path, nil
	}
}

// Prepare returns the step run before each start: it creates a local
// workspace and restores the newest snapshot as the restore policy says.
// A refusal (a non-empty workspace under restore = true) is a notice for
// the pane, not a failure.
func (w Policy) Prepare(sb config.Sandbox) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		local := w.localDir(sb)
		if local && sb.Restore == config.RestoreOff {
			_, statErr := os.Stat(sb.Workspace)
			if err := os.MkdirAll(sb.Workspace, 0o755); err != nil {
				return "", fmt.Errorf("create workspace: %w (check the workspace key of %q)", err, sb.Name)
			}
			if errors.Is(statErr, fs.ErrNotExist) {
				// Said once: the next start finds it.
				return "created workspace " + sb.Workspace, nil
			}
			return "", nil
		}
		if sb.Restore == config.RestoreOff {
			return "", nil
		}
		opts := snapshot.RestoreOptions{Replace: sb.Restore == config.RestoreReplace}
		if local {
			// Restore unpacks beside the workspace, then swaps it in.
			if err := os.MkdirAll(filepath.Dir(sb.Workspace), 0o755); err != nil {
				return "", fmt.Errorf("create workspace's parent: %w", err)
			}
		}
		var err error
		var e snapshot.Entry
		if local {
			e, _, err = w.StoreFor(sb).RestoreNewest(ctx, sb.Name, sb.Workspace, opts)
		} else {
			e, err = w.restoreRemote(ctx, sb, opts)
		}
		switch {
		case errors.Is(err, snapshot.ErrNoSnapshot):
			err = nil
		case errors.Is(err, snapshot.ErrNotEmpty):
			return "restore refused: " + err.Error(), nil
		case err == nil && e.Path != "":
			return "restored " + e.Time.Local().Format("2006-01-02 15:04"), mkdirAll(local, sb.Workspace)
		}
		if err != nil {
			return "", fmt.Errorf("restore %q: %w", sb.Name, err)
		}
		return "", mkdirAll(local, sb.Workspace)
	}
}

func mkdirAll(local bool, dir string) error {
	if !local {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create workspace: %w", err)
	}
	return nil
}

// restoreRemote streams the newest snapshot into a remote workspace.
func (w Policy) restoreRemote(ctx context.Context, sb config.Sandbox, opts snapshot.RestoreOptions) (snapshot.Entry, error) {
	ws := w.exporter(sb)
	if ws == nil {
		return snapshot.Entry{}, fmt.Errorf("provider %q cannot write workspaces: set restore = false", sb.Provider)
	}
	e, ok, err := w.StoreFor(sb).Newest(sb.Name)
	if err != nil {
		return e, err
	}
	if !ok {
		return e, snapshot.ErrNoSnapshot
	}
	spec := sb.Spec()
	if !opts.Replace {
		empty, err := remoteEmpty(ctx, ws, spec)
		if err != nil {
			return e, fmt.Errorf("%w: cannot tell whether the workspace %s of %q is empty (%v); snapshot %s not restored (set restore = \"replace\" to replace it)",
				snapshot.ErrNotEmpty, spec.Dir, sb.Name, err, filepath.Base(e.Path))
		}
		if !empty {
			return e, fmt.Errorf("%w: the workspace %s of %q is not; snapshot %s not restored (set restore = \"replace\" to replace it)",
				snapshot.ErrNotEmpty, spec.Dir, sb.Name, filepath.Base(e.Path))
		}
	}
	_, err = snapshot.RestoreStream(ctx, e.Path, func(ctx context.Context, r io.Reader) error {
		return ws.ImportWorkspace(ctx, spec, r)
	}, opts)
	return e, err
}

// remoteEmpty reports whether a remote workspace holds nothing: its tar
// stream has no member but the root. Reading stops at the first member
// found. A workspace that does not exist yet counts as empty (the restore
// creates it); any other failure to read it is an error, never "empty".
func remoteEmpty(ctx context.Context, ws providers.Workspace, spec providers.Spec) (bool, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pr, pw := io.Pipe()
	exported := make(chan error, 1)
	go func() {
		err := ws.ExportWorkspace(ctx, spec, pw)
		pw.CloseWithError(err)
		exported <- err
	}()
	tr := tar.NewReader(pr)
	nonEmpty := false
	var readErr error
	for {
		h, err := tr.Next()
		if err != nil {
			if err != io.EOF {
				readErr = err
			}
			break
		}
		if name := strings.TrimPrefix(path.Clean(h.Name), "./"); name != "." && name != "" {
			nonEmpty = true
			break
		}
	}
	if nonEmpty || readErr != nil {
		cancel() // the answer is known: stop the export early
	} else {
		_, _ = io.Copy(io.Discard, pr) // the end-of-archive padding; the export finishes by itself
	}
	_ = pr.Close() // unblocks the exporter's writes once we stop reading
	exportErr := <-exported
	switch {
	case nonEmpty:
		return false, nil
	case exportErr == nil && readErr == nil:
		return true, nil
	case errors.Is(exportErr, providers.ErrNoWorkspace):
		return true, nil
	}
	return false, errors.Join(exportErr, readErr)
}
