package docker

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"

	"github.com/sandmux/sandmux/providers"
)

var _ providers.Workspace = (*Provider)(nil)

// ExportWorkspace writes the workspace of spec, read through the engine's
// archive API, to w as a tar stream rooted at ".". Hard links are written
// as regular files, each with its own copy of the content, since a restore
// from a stream cannot rebuild them.
//
// With the container option the workspace is the workdir option, else the
// container's working directory. With image it is Spec.Dir on the engine's
// host, read through a temporary container that mounts it and is removed
// afterwards; on a local engine reading Spec.Dir directly is cheaper.
func (p *Provider) ExportWorkspace(ctx context.Context, spec providers.Spec, w io.Writer) error {
	err := withWorkspace(ctx, spec, false, func(ctx context.Context, e *engine, cid, dir string) error {
		return exportTar(ctx, e, cid, dir, w)
	})
	if err != nil {
		return fmt.Errorf("export docker workspace of %q: %w", spec.Name, err)
	}
	return nil
}

// ImportWorkspace replaces the contents of the workspace of spec (see
// ExportWorkspace) with the tar stream r. The stream is unpacked by the
// engine into a staging directory inside the workspace, and swapped in only
// once complete, by a shell script run in the container (it needs sh, rm,
// mv and mkdir). Members with absolute names, "..", devices or FIFOs are
// refused; the caller is expected to have verified the archive already.
func (p *Provider) ImportWorkspace(ctx context.Context, spec providers.Spec, r io.Reader) error {
	err := withWorkspace(ctx, spec, true, func(ctx context.Context, e *engine, cid, dir string) error {
		return importTar(ctx, e, cid, dir, r)
	})
	if err != nil {
		return fmt.Errorf("import docker workspace of %q: %w", spec.Name, err)
	}
	return nil
}

// withWorkspace connects, finds the container and directory holding the
// workspace, and runs f; it releases whatever it created before returning.
// running says f needs a running container (to run helper programs).
func withWorkspace(ctx context.Context, spec providers.Spec, running bool, f func(ctx context.Context, e *engine, cid, dir string) error) (err error) {
	opts, err := ParseOptions(spec.Options)
	if err != nil {
		return err
	}
	e, err := connect(ctx, engineHost(opts.Host), opts.ConnectTimeout)
	if err != nil {
		return err
	}
	defer e.close()
	if opts.Container != "" {
		in, err := e.ContainerInspect(ctx, opts.Container, client.ContainerInspectOptions{})
		if err != nil {
			return fmt.Errorf("find container %q: %w", opts.Container, err)
		}
		dir := opts.Workdir
		if dir == "" && in.Container.Config != nil {
			dir = in.Container.Config.WorkingDir
		}
		if dir == "" || dir == "/" {
			return fmt.Errorf("container %q has no working directory to treat as the workspace: set the workdir option", opts.Container)
		}
		if running && (in.Container.State == nil || !in.Container.State.Running) {
			return fmt.Errorf("container %q is not running (start it with: docker start %s)", opts.Container, opts.Container)
		}
		return f(ctx, e, in.Container.ID, dir)
	}
	if spec.Dir == "" {
		return errors.New("the sandbox has no workspace directory to mount")
	}
	// A container of the sandbox's image that mounts the workspace, as Open
	// would create it; it only needs to run for helper programs.
	s := &starter{spec: spec, opts: opts, e: e, name: containerName(spec.Name + "-workspace")}
	cfg, hostCfg := s.containerConfig()
	cfg.Labels[Label+".purpose"] = "workspace"
	dctx, cancel := detached(ctx)
	res, err := e.ContainerCreate(dctx, client.ContainerCreateOptions{Name: s.name, Config: cfg, HostConfig: hostCfg})
	cancel()
	defer func() {
		rctx, cancel := detached(ctx)
		defer cancel()
		err = errors.Join(err, removeContainer(rctx, e, res.ID, s.name))
	}()
	if err != nil {
		return fmt.Errorf("create a container from image %q to reach the workspace: %w", opts.Image, err)
	}
	if running {
		dctx, cancel := detached(ctx)
		_, err := e.ContainerStart(dctx, res.ID, client.ContainerStartOptions{})
		cancel()
		if err != nil {
			return fmt.Errorf("start a container from image %q to reach the workspace: %w", opts.Image, err)
		}
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return f(ctx, e, res.ID, opts.Workdir)
}

// exportTar streams the archive of dir, re-rooted from the directory's own
// name (how the engine roots it) to ".".
func exportTar(ctx context.Context, e *engine, cid, dir string, w io.Writer) error {
	res, err := e.CopyFromContainer(ctx, cid, client.CopyFromContainerOptions{SourcePath: dir})
	if cerrdefs.IsNotFound(err) {
		return fmt.Errorf("read %s from container %.12s: %w: %w", dir, cid, providers.ErrNoWorkspace, err)
	}
	if err != nil {
		return fmt.Errorf("read %s from container %.12s: %w (check the workdir option)", dir, cid, err)
	}
	defer res.Content.Close()
	tr, tw := tar.NewReader(res.Content), tar.NewWriter(w)
	root := ""
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("read the engine's archive of %s: %w", dir, err)
		}
		if root == "" {
			root = strings.TrimSuffix(h.Name, "/")
		}
		name, ok := reroot(h.Name, root)
		if !ok {
			return fmt.Errorf("the engine's archive of %s holds %q, outside %q", dir, h.Name, root)
		}
		h.Name = name
		if err := writeMember(ctx, e, cid, dir, root, tw, h, tr); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("finish workspace stream: %w", err)
	}
	return nil
}

// writeMember writes one member, with a hard link replaced by a copy of
// the file it links to.
func writeMember(ctx context.Context, e *engine, cid, dir, root string, tw *tar.Writer, h *tar.Header, body io.Reader) error {
	if h.Typeflag == tar.TypeLink {
		target, ok := reroot(h.Linkname, root)
		if !ok {
			return fmt.Errorf("the engine's archive of %s links %q to %q, outside %q", dir, h.Name, h.Linkname, root)
		}
		f, err := linkedFile(ctx, e, cid, path.Join(dir, target))
		if err != nil {
			return err
		}
		defer f.Close()
		h.Typeflag, h.Linkname, h.Size, body = tar.TypeReg, "", f.size, f
	}
	if err := tw.WriteHeader(h); err != nil {
		return fmt.Errorf("write workspace stream: %w", err)
	}
	if _, err := io.Copy(tw, body); err != nil {
		return fmt.Errorf("copy %s into the workspace stream: %w", h.Name, err)
	}
	return nil
}

// reroot maps a member name under root to one under ".".
func reroot(name, root string) (string, bool) {
	name = strings.TrimSuffix(name, "/")
	if name == root {
		return ".", true
	}
	rest, ok := strings.CutPrefix(name, root+"/")
	if !ok {
		return "", false
	}
	return "./" + rest, true
}

// sizedReader is the content of one regular file from the engine.
type sizedReader struct {
	io.Reader
	io.Closer
	size int64
}

// linkedFile fetches the file a hard link points to: its first (here only)
// member in a fresh archive is a regular file with its content.
func linkedFile(ctx context.Context, e *engine, cid, p string) (*sizedReader, error) {
	res, err := e.CopyFromContainer(ctx, cid, client.CopyFromContainerOptions{SourcePath: p})
	if err != nil {
		return nil, fmt.Errorf("read hard-linked %s: %w", p, err)
	}
	tr := tar.NewReader(res.Content)
	h, err := tr.Next()
	if err != nil || h.Typeflag != tar.TypeReg {
		_ = res.Content.Close() // Best effort: the error says what went wrong.
		return nil, fmt.Errorf("read hard-linked %s: not a regular file (%v)", p, err)
	}
	return &sizedReader{Reader: tr, Closer: res.Content, size: h.Size}, nil
}

// importTar unpacks r into a staging directory in dir, then swaps it in.
func importTar(ctx context.Context, e *engine, cid, dir string, r io.Reader) (err error) {
	stage := path.Join(dir, ".sandmux-import-"+newToken()[:12])
	if err := script(ctx, e, cid, stageScript+"; echo staged", "staged", dir, stage); err != nil {
		return fmt.Errorf("prepare %s: %w", stage, err)
	}
	swapped := false
	defer func() {
		if swapped {
			return
		}
		dctx, cancel := detached(ctx)
		defer cancel()
		if uerr := script(dctx, e, cid, unstageScript, "removed", dir, stage); uerr != nil {
			err = errors.Join(err, fmt.Errorf("remove %s: %w", stage, uerr))
		}
	}()
	if err := copyChecked(ctx, e, cid, stage, r); err != nil {
		return err
	}
	if err := script(ctx, e, cid, swapScript, "swapped", dir, stage); err != nil {
		return fmt.Errorf("swap the restored files into %s: %w", dir, err)
	}
	swapped = true
	return nil
}

// script runs a workspace script with args and checks it printed want.
func script(ctx context.Context, e *engine, cid, body, want string, args ...string) error {
	res, err := e.run(ctx, cid, "0", append([]string{"/bin/sh", "-c", body, "sandmux-workspace"}, args...))
	if err != nil {
		return err
	}
	if strings.TrimSpace(res.Stdout) != want {
		return fmt.Errorf("%w: %q (the container needs sh, rm, mv and mkdir)", ErrHelperFailed, res.Stderr)
	}
	return nil
}

// copyChecked sends r to the engine for unpacking into stage, refusing
// members that do not belong in a workspace. The checker runs on its own
// goroutine, which is joined before copyChecked returns.
func copyChecked(ctx context.Context, e *engine, cid, stage string, r io.Reader) error {
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := checkTar(r, pw)
		pw.CloseWithError(err) // nil: the engine reads io.EOF
		done <- err
	}()
	_, err := e.CopyToContainer(ctx, cid, client.CopyToContainerOptions{DestinationPath: stage, Content: pr, CopyUIDGID: true})
	pr.CloseWithError(errors.New("the engine stopped reading the workspace stream"))
	if cerr := <-done; cerr != nil && !errors.Is(cerr, io.ErrClosedPipe) {
		return errors.Join(cerr, err)
	}
	if err != nil {
		return fmt.Errorf("unpack the workspace stream in container %.12s: %w", cid, err)
	}
	return nil
}

// checkTar copies the tar stream r to w, failing on a member a workspace
// must not hold.
func checkTar(r io.Reader, w io.Writer) error {
	tr, tw := tar.NewReader(r), tar.NewWriter(w)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return tw.Close()
		}
		if err != nil {
			return fmt.Errorf("read the workspace stream: %w", err)
		}
		name := path.Clean(h.Name)
		if path.IsAbs(name) || name == ".." || strings.HasPrefix(name, "../") {
			return fmt.Errorf("workspace stream member %q: names outside the workspace are refused", h.Name)
		}
		switch h.Typeflag {
		case tar.TypeReg, tar.TypeDir, tar.TypeSymlink, tar.TypeXGlobalHeader:
		case tar.TypeLink:
			if l := path.Clean(h.Linkname); path.IsAbs(l) || l == ".." || strings.HasPrefix(l, "../") {
				return fmt.Errorf("workspace stream member %q: a hard link outside the workspace is refused", h.Name)
			}
		default:
			return fmt.Errorf("workspace stream member %q: type %q is refused (only files, directories and links)", h.Name, h.Typeflag)
		}
		if err := tw.WriteHeader(h); err != nil {
			return fmt.Errorf("write workspace stream: %w", err)
		}
		if _, err := io.Copy(tw, tr); err != nil {
			return fmt.Errorf("copy workspace stream member %q: %w", h.Name, err)
		}
	}
}
