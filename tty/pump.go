package tty

import (
	"errors"
	"io"
	"os"
	"sync"

	"github.com/muesli/cancelreader"
)

// ErrStopped is how a pump's end says that Stop ended it.
var ErrStopped = errors.New("input pump stopped")

// Pump reads a file on a goroutine of its own and hands each read to a
// function, until the input ends, the function refuses, or Stop.
//
//	in ──read (chunk at most)──► deliver(bytes) ─► … ─► ended(why)
type Pump struct {
	r    cancelreader.CancelReader
	wg   sync.WaitGroup
	once sync.Once
}

// StartPump starts reading in, at most chunk bytes a read. deliver gets
// each read's bytes (the buffer is reused: copy what must outlive the
// call); an error from it stops the pump. ended then runs, on the pump's
// goroutine, with why reads stopped: io.EOF at the input's end,
// ErrStopped after Stop, deliver's error, or the read's. A file that
// epoll cannot watch (a regular file, /dev/null) is read as it is: its
// reads end by themselves, so Stop waits for the one under way.
func StartPump(in *os.File, chunk int, deliver func([]byte) error, ended func(why error)) *Pump {
	r, err := cancelreader.NewReader(in)
	if err != nil {
		r = plainReader{in}
	}
	p := &Pump{r: r}
	p.wg.Go(func() {
		buf := make([]byte, chunk)
		why := p.pump(buf, deliver)
		if ended != nil {
			ended(why)
		}
	})
	return p
}

func (p *Pump) pump(buf []byte, deliver func([]byte) error) error {
	for {
		n, err := p.r.Read(buf)
		if n > 0 {
			if derr := deliver(buf[:n]); derr != nil {
				return derr
			}
		}
		switch {
		case errors.Is(err, cancelreader.ErrCanceled):
			return ErrStopped
		case err != nil:
			return err
		}
	}
}

// Stop ends the reads and waits for the pump, ended included; it is
// idempotent, and leaves the file itself open.
func (p *Pump) Stop() {
	if p == nil {
		return
	}
	p.once.Do(func() {
		p.r.Cancel()
		p.wg.Wait()
		_ = p.r.Close() // Best effort: releases the epoll and its pipe; the file stays open.
	})
}

// Cancelable reports whether Stop ends a read under way, rather than
// waiting for it to end by itself.
func (p *Pump) Cancelable() bool {
	_, plain := p.r.(plainReader)
	return !plain
}

// plainReader is input whose reads end by themselves.
type plainReader struct{ io.Reader }

func (plainReader) Cancel() bool { return false }
func (plainReader) Close() error { return nil }
