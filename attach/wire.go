package attach

// The local wire: after the attach request's reply line
// (docs/PROTOCOL.md), the connection carries frames both ways, each a
// type byte, a big-endian uint32 payload length, and the payload:
//
//	client → server:  'i' input bytes  |  'r' width uint16, height uint16
//	server → client:  'o' output bytes |  'x' flags byte (1: detached), code int32, summary
//
// Frames are binary, not JSON lines, because every key press and every
// drawn frame crosses them: one header and no encoding keeps a key's echo
// to a copy and a syscall on each side.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// frameType says what a frame carries.
type frameType byte

// The frame types.
const (
	frameInput  frameType = 'i' // client → server: bytes typed
	frameResize frameType = 'r' // client → server: the terminal's new size
	frameOutput frameType = 'o' // server → client: bytes to draw
	frameExit   frameType = 'x' // server → client: how the attachment ended; the last frame
)

const (
	// headerLen is a frame's type byte and payload length.
	headerLen = 5
	// MaxPayload bounds one frame's payload: far more than a key press
	// or a frame of a large terminal in one write, small enough that a
	// peer cannot make the other side allocate much.
	MaxPayload = 1 << 20
	// maxDim bounds a terminal's width and height in cells as the wire
	// carries them (a resize's uint16). A larger size than termsize
	// allows is taken and drawn at termsize's bound (A10): a client is
	// not refused for having a large terminal.
	maxDim = 1<<16 - 1
)

// errFrame means the peer sent something that is not a frame this side
// takes; the connection cannot go on after it.
var errFrame = errors.New("unreadable attach frame")

// frameReader reads frames, reusing one buffer for their payloads.
type frameReader struct {
	r   io.Reader
	hdr [headerLen]byte
	buf []byte
}

// next reads one frame. Its payload is valid until the next call. A
// clean end between frames is io.EOF; an end inside one is
// io.ErrUnexpectedEOF.
func (fr *frameReader) next() (frameType, []byte, error) {
	if _, err := io.ReadFull(fr.r, fr.hdr[:]); err != nil {
		return 0, nil, err
	}
	t := frameType(fr.hdr[0])
	n := binary.BigEndian.Uint32(fr.hdr[1:])
	if n > MaxPayload {
		return 0, nil, fmt.Errorf("%w: a %q frame of %d bytes, over the %d allowed", errFrame, byte(t), n, MaxPayload)
	}
	if cap(fr.buf) < int(n) {
		fr.buf = make([]byte, n)
	}
	p := fr.buf[:n]
	if _, err := io.ReadFull(fr.r, p); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return 0, nil, err
	}
	return t, p, nil
}

// putHeader fills b[:headerLen] for a frame of type t with an n-byte
// payload.
func putHeader(b []byte, t frameType, n int) {
	b[0] = byte(t)
	binary.BigEndian.PutUint32(b[1:headerLen], uint32(n))
}

// appendFrame appends a whole frame to b.
func appendFrame(b []byte, t frameType, payload []byte) []byte {
	var hdr [headerLen]byte
	putHeader(hdr[:], t, len(payload))
	return append(append(b, hdr[:]...), payload...)
}

func resizePayload(sz Size) []byte {
	return binary.BigEndian.AppendUint16(binary.BigEndian.AppendUint16(nil, uint16(sz.Width)), uint16(sz.Height))
}

func decodeResize(p []byte) (Size, error) {
	if len(p) != 4 {
		return Size{}, fmt.Errorf("%w: a resize of %d bytes, not 4", errFrame, len(p))
	}
	sz := Size{Width: int(binary.BigEndian.Uint16(p)), Height: int(binary.BigEndian.Uint16(p[2:]))}
	if err := checkSize(sz); err != nil {
		return Size{}, fmt.Errorf("%w: %w", errFrame, err)
	}
	return sz, nil
}

// checkSize accepts a size a terminal can have.
func checkSize(sz Size) error {
	if sz.Width < 1 || sz.Height < 1 || sz.Width > maxDim || sz.Height > maxDim {
		return fmt.Errorf("terminal size %dx%d: each side must be 1 to %d cells", sz.Width, sz.Height, maxDim)
	}
	return nil
}

// exitDetached is the flag bit of an exit frame that says the client
// detached.
const exitDetached = 1

func exitPayload(e Exit) []byte {
	var flags byte
	if e.Detached {
		flags |= exitDetached
	}
	b := binary.BigEndian.AppendUint32([]byte{flags}, uint32(int32(e.Code)))
	summary := e.Summary
	if len(summary) > MaxPayload-len(b) {
		summary = summary[:MaxPayload-len(b)] // A summary this long is cut, never refused.
	}
	return append(b, summary...)
}

func decodeExit(p []byte) (Exit, error) {
	if len(p) < 5 {
		return Exit{}, fmt.Errorf("%w: an exit of %d bytes, under 5", errFrame, len(p))
	}
	if p[0]&^exitDetached != 0 {
		return Exit{}, fmt.Errorf("%w: exit flags %#x", errFrame, p[0])
	}
	return Exit{
		Detached: p[0]&exitDetached != 0,
		Code:     int(int32(binary.BigEndian.Uint32(p[1:]))),
		Summary:  string(p[5:]),
	}, nil
}
