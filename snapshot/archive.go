package snapshot

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"strconv"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

var (
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
	gzipMagic = []byte{0x1f, 0x8b}
)

// maxWindow bounds the memory a zstd frame may ask for; zstd's own CLI
// refuses larger windows by default too.
const maxWindow = 128 << 20

// sink receives admitted members. file must read exactly h.Size bytes of r.
type sink interface {
	dir(m member, h *tar.Header) error
	file(m member, h *tar.Header, r io.Reader) error
	symlink(m member, h *tar.Header) error
}

// scanned is what a scan learned about an archive.
type scanned struct {
	Format                       string // "zstd", "gzip" or "tar"
	Files, Dirs, Symlinks, Bytes int64
	Size                         int64  // archive bytes read
	SHA256                       string // of the archive bytes
}

// scan reads the whole archive from r, applies every member rule and limit,
// and hands admitted members to s. Every byte read goes to sum, and
// Size and SHA256 describe them. It stops at the first refusal; nothing
// it refuses reaches the sink.
func scan(ctx context.Context, r io.Reader, sum hash.Hash, lim Limits, s sink, rep *reporter) (scanned, error) {
	lim = lim.withDefaults()
	counted := &countReader{r: r}
	raw := bufio.NewReaderSize(io.TeeReader(counted, sum), 1<<20)
	stream, format, closeFn, err := decompress(raw)
	if err != nil {
		return scanned{}, err
	}
	defer closeFn()
	capped := &capReader{r: stream, left: lim.streamCap()}
	res, err := scanTar(ctx, tar.NewReader(capped), capped, lim, s, rep)
	if err != nil {
		return scanned{}, err
	}
	if err := drainTrailing(capped, res.last); err != nil {
		return scanned{}, err
	}
	// Hash whatever the decompressor left unread (normally nothing).
	if _, err := io.Copy(io.Discard, raw); err != nil {
		return scanned{}, corrupt(res.last, "reading the archive after its end", err)
	}
	out := res.scanned
	out.Format, out.Size, out.SHA256 = format, counted.n, hex.EncodeToString(sum.Sum(nil))
	return out, nil
}

type tarResult struct {
	scanned
	last string // name of the last member read, for errors between members
}

func scanTar(ctx context.Context, tr *tar.Reader, capped *capReader, lim Limits, s sink, rep *reporter) (tarResult, error) {
	chk := newChecker(lim)
	res := tarResult{last: "(start of archive)"}
	for {
		if ctx.Err() != nil {
			return res, context.Cause(ctx)
		}
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return res, readFailure(ctx, "after "+res.last, "reading the next header", err)
		}
		if h.Typeflag == tar.TypeXGlobalHeader {
			continue
		}
		res.last = h.Name
		m, err := chk.admit(h)
		if err != nil {
			return res, err
		}
		rep.file(m.name)
		switch h.Typeflag {
		case tar.TypeDir:
			err = s.dir(m, h)
		case tar.TypeSymlink:
			err = s.symlink(m, h)
		case tar.TypeReg:
			cr := &contentReader{ctx: ctx, r: tr, rep: rep}
			err = s.file(m, h, cr)
			if cr.err != nil {
				return res, readFailure(ctx, h.Name, "reading its content", cr.err)
			}
			if err == nil && cr.n != h.Size {
				err = fmt.Errorf("sink read %d of %d bytes", cr.n, h.Size) // A bug in a sink, not the archive.
			}
			rep.add(1, 0)
		}
		if err != nil {
			if ctx.Err() != nil {
				return res, context.Cause(ctx)
			}
			return res, fmt.Errorf("member %q: %w", h.Name, err)
		}
	}
	if err := chk.finish(); err != nil {
		return res, err
	}
	res.Files, res.Dirs, res.Symlinks, res.Bytes = chk.files, chk.dirs, int64(len(chk.links)), chk.bytes
	return res, nil
}

// readFailure classifies an error from reading the archive: cancellation,
// the decompressed-size cap, or damage.
func readFailure(ctx context.Context, member, doing string, err error) error {
	switch {
	case ctx.Err() != nil:
		return context.Cause(ctx)
	case errors.Is(err, errStreamCap):
		return overLimit(member, "%v; raise the byte or member limit if you trust this archive", err)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return corrupt(member, doing+": the archive is truncated", err)
	default:
		return corrupt(member, doing, err)
	}
}

// drainTrailing reads what follows the end-of-archive blocks: zeros (record
// padding) are fine, up to maxTrailing bytes; anything else is refused, so
// a second archive appended to the first cannot hide members.
func drainTrailing(r io.Reader, last string) error {
	buf := make([]byte, 32<<10)
	var n int64
	for {
		k, err := r.Read(buf)
		n += int64(k)
		if n > maxTrailing {
			return overLimit("after "+last, "more than %d bytes follow the end of the archive", maxTrailing)
		}
		if bytes.IndexFunc(buf[:k], func(r rune) bool { return r != 0 }) >= 0 {
			return corrupt("after "+last, "data follows the end of the archive", nil)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return readFailure(context.Background(), "after "+last, "reading the end of the archive", err)
		}
	}
}

// decompress recognises the format by its magic bytes.
func decompress(raw *bufio.Reader) (io.Reader, string, func(), error) {
	head, err := raw.Peek(512)
	if err != nil && err != io.EOF {
		return nil, "", nil, corrupt("(start of archive)", "reading the archive", err)
	}
	switch {
	case bytes.HasPrefix(head, zstdMagic):
		dec, err := zstd.NewReader(raw, zstd.WithDecoderMaxWindow(maxWindow), zstd.WithDecoderMaxMemory(maxWindow),
			zstd.WithDecoderConcurrency(2))
		if err != nil {
			return nil, "", nil, corrupt("(start of archive)", "starting zstd", err)
		}
		return dec, "zstd", dec.Close, nil
	case bytes.HasPrefix(head, gzipMagic):
		gz, err := gzip.NewReader(raw)
		if err != nil {
			return nil, "", nil, corrupt("(start of archive)", "reading the gzip header", err)
		}
		return gz, "gzip", func() { _ = gz.Close() }, nil // Best effort: Close only releases state.
	case isTar(head):
		return raw, "tar", func() {}, nil
	}
	return nil, "", nil, corrupt("(start of archive)", "not a zstd, gzip or tar archive", nil)
}

// isTar recognises a tar header block by its ustar magic or, for old
// archives without one, by its checksum.
func isTar(b []byte) bool {
	if len(b) < 512 {
		return false
	}
	if bytes.Equal(b[257:262], []byte("ustar")) {
		return true
	}
	field := string(bytes.Trim(b[148:156], " \x00"))
	want, err := strconv.ParseInt(field, 8, 64)
	if err != nil {
		return false
	}
	var got int64
	for i, c := range b {
		if i >= 148 && i < 156 {
			c = ' '
		}
		got += int64(c)
	}
	return got == want
}

var errStreamCap = fmt.Errorf("%w: the decompressed archive is larger than the limits allow", ErrLimit)

// capReader fails once more than left bytes were read: decompression stops
// there, however small the compressed input (a zstd bomb).
type capReader struct {
	r    io.Reader
	left int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, errStreamCap
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// contentReader is a member's content as a sink sees it: it checks for
// cancellation between reads, reports progress, and remembers a read
// failure so it is blamed on the archive, not the sink.
type contentReader struct {
	ctx context.Context
	r   io.Reader
	rep *reporter
	n   int64
	err error
}

func (c *contentReader) Read(p []byte) (int, error) {
	if c.ctx.Err() != nil {
		return 0, context.Cause(c.ctx)
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	c.rep.add(0, int64(n))
	if err != nil && err != io.EOF {
		c.err = err
	}
	return n, err
}
