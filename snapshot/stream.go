package snapshot

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
)

// RestoreStream restores archive into a workspace that a provider writes
// from a tar stream (providers.Workspace.ImportWorkspace), for sandboxes
// that are not local directories. The archive is first read completely
// and checked, as Verify does; only if it passes is it read again, through
// the same open file, and handed to importFn as a tar stream rebuilt from
// the admitted members (clean names rooted at ".", permission bits only,
// no owners), so the provider never sees a member a local restore would
// refuse. Replacing the workspace only when the stream is complete is the
// provider's part.
//
// importFn runs on its own goroutine and must return when its context is
// cancelled or its reads fail; RestoreStream waits for it (W2) and reports
// a cancellation's cause first (W3).
func RestoreStream(ctx context.Context, archive string, importFn func(ctx context.Context, r io.Reader) error, opts RestoreOptions) (*Report, error) {
	rep := newReporter(opts.OnProgress)
	defer rep.stop()
	r, err := restoreStream(ctx, archive, importFn, opts.Limits, rep)
	if err != nil {
		return nil, settle(ctx, fmt.Errorf("restore %s into the sandbox: %w", archive, err))
	}
	return r, nil
}

var errImportStopped = errors.New("the importer stopped reading")

func restoreStream(ctx context.Context, archive string, importFn func(context.Context, io.Reader) error, lim Limits, rep *reporter) (r *Report, err error) {
	o, err := openArchive(archive)
	if err != nil {
		return nil, err
	}
	defer o.f.Close()
	if _, err := o.readFrom(ctx, lim, discardSink{buf: make([]byte, copyBuffer)}, newReporter(nil)); err != nil {
		return nil, err
	}
	ictx, cancel := context.WithCancelCause(ctx)
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := importFn(ictx, pr)
		pr.CloseWithError(errImportStopped) // Our writes fail from now on.
		done <- err
	}()
	// A cancellation unblocks a write the importer is not reading; the
	// importer then sees the cause on its next read.
	stopWrite := context.AfterFunc(ctx, func() { pw.CloseWithError(context.Cause(ctx)) })
	defer stopWrite()
	tw := tar.NewWriter(pw)
	r, err = o.readFrom(ctx, lim, &tarSink{tw: tw}, rep)
	if err == nil {
		err = tw.Close()
	}
	if err != nil {
		cancel(err)
		pw.CloseWithError(fmt.Errorf("snapshot stopped: %w", err))
	} else {
		pw.Close() // The importer sees the end of the stream.
	}
	ierr := <-done // W2: return only once the importer stopped.
	cancel(nil)
	switch {
	case ierr == nil:
	case err == nil || errors.Is(err, errImportStopped):
		err = fmt.Errorf("import workspace: %w", ierr)
	default:
		err = errors.Join(err, fmt.Errorf("import workspace: %w", ierr))
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

// tarSink rewrites admitted members as a clean tar stream.
type tarSink struct {
	tw *tar.Writer
}

func (s *tarSink) header(m member, h *tar.Header, size int64) error {
	name := "./" + m.name
	if h.Typeflag == tar.TypeDir {
		name += "/"
		if m.name == "." {
			name = "./"
		}
	}
	return s.tw.WriteHeader(&tar.Header{Typeflag: h.Typeflag, Name: name, Linkname: h.Linkname,
		Mode: int64(perm(h.Mode)), Size: size, ModTime: h.ModTime, Format: tar.FormatPAX})
}

func (s *tarSink) dir(m member, h *tar.Header) error     { return s.header(m, h, 0) }
func (s *tarSink) symlink(m member, h *tar.Header) error { return s.header(m, h, 0) }

func (s *tarSink) file(m member, h *tar.Header, r io.Reader) error {
	if err := s.header(m, h, h.Size); err != nil {
		return err
	}
	_, err := io.Copy(s.tw, r)
	return err
}
