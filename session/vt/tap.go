package vt

import (
	"slices"
	"time"
)

// Tap sees what a Screen parses, for recording it. Its methods are called
// under the Screen's lock, in stream order, so they must not block or call
// back into the Screen: they copy into memory and return.
//
// A tap gets, in order: one Keyframe when it is installed (the screen as
// it is then), then an Output for each slice of text the Screen parsed and
// a Resize for each size change, and a further Keyframe whenever it asks
// for one (KeyframeWanter). Keyframe, then every Output and Resize after
// it, replayed into a fresh Screen of the keyframe's size, reproduce the
// screen.
type Tap interface {
	// Keyframe gets a keyframe (see Screen.Keyframe) of a screen of cols
	// x rows. kf is valid only during the call.
	Keyframe(at time.Time, cols, rows int, kf []byte)
	// Output gets text the Screen just parsed.
	Output(at time.Time, text string)
	// Resize gets the new size after the Screen resized.
	Resize(at time.Time, cols, rows int)
}

// KeyframeWanter is a Tap that takes keyframes along the way (a ring
// that drops old output): after each Output and Resize the Screen asks
// WantKeyframe, and gives it a Keyframe when it says yes.
type KeyframeWanter interface {
	Tap
	WantKeyframe() bool
}

type tapEntry struct {
	t    Tap
	want KeyframeWanter // t, when it takes keyframes along the way
	id   uint64
}

// Tap installs t and, atomically with installing it, gives it a keyframe
// of the screen: nothing the Screen parses is missed or seen twice. The
// returned function removes the tap; it is idempotent. Zero taps cost one
// length check per slice of Write.
//
// A keyframe may fall while the pre-parser holds part of an escape
// sequence (Write's text may end anywhere): the keyframe then ends with
// that partial sequence, so the next Output completes it on replay as it
// did here.
func (s *Screen) Tap(t Tap) (untap func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tapSeq++
	e := tapEntry{t: t, id: s.tapSeq}
	e.want, _ = t.(KeyframeWanter)
	s.kfBuf = s.keyframe(s.kfBuf[:0])
	t.Keyframe(time.Now(), s.cols, s.rows, s.kfBuf)
	s.taps = append(s.taps, e)
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.taps = slices.DeleteFunc(s.taps, func(x tapEntry) bool { return x.id == e.id })
	}
}

// tapOutput hands the slice just parsed to every tap.
func (s *Screen) tapOutput(text string) {
	at := time.Now()
	for _, e := range s.taps {
		e.t.Output(at, text)
	}
	s.tapKeyframes(at)
}

// tapResize tells every tap the new size. After a reflow every tap gets
// a keyframe too: a replay has no scrollback to pull lines back from and
// its rows no auto-wrap marks to join, so it could not reflow the same.
func (s *Screen) tapResize(reflowed bool) {
	at := time.Now()
	for _, e := range s.taps {
		e.t.Resize(at, s.cols, s.rows)
	}
	if !reflowed {
		s.tapKeyframes(at)
		return
	}
	s.kfBuf = s.keyframe(s.kfBuf[:0])
	for _, e := range s.taps {
		e.t.Keyframe(at, s.cols, s.rows, s.kfBuf)
	}
	if cap(s.kfBuf) > 1<<20 {
		s.kfBuf = nil
	}
}

// tapKeyframes gives a keyframe to the taps that want one, building it
// once for all of them.
func (s *Screen) tapKeyframes(at time.Time) {
	built := false
	for _, e := range s.taps {
		if e.want == nil || !e.want.WantKeyframe() {
			continue
		}
		if !built {
			s.kfBuf, built = s.keyframe(s.kfBuf[:0]), true
		}
		e.t.Keyframe(at, s.cols, s.rows, s.kfBuf)
	}
	if cap(s.kfBuf) > 1<<20 {
		s.kfBuf = nil // a huge screen's keyframe: do not keep its buffer
	}
}
