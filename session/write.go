package session

// writeNower is a PTY that can be written without waiting (a local
// one): WriteNow writes what the PTY takes at once, never waits, and
// says how much that was.
type writeNower interface {
	WriteNow(p []byte) (int, error)
}

// Write sends p to the child's input without blocking. When nothing is
// queued and the PTY can be written without waiting, it writes at once,
// on the caller's goroutine: a key reaches its child with no hand-off (a
// non-blocking write: the model's loop calls this and never waits). What
// the PTY does not take at once, and anything while earlier input is
// still queued, is queued and written in order by the session's writer
// goroutine, started by the first input queued.
func (s *Session) Write(p []byte) error {
	select {
	case <-s.inputDone:
		return ErrInputClosed
	default:
	}
	if s.writeNow != nil && s.writeMu.TryLock() {
		if s.queued.Load() == 0 {
			n, err := s.writeNow.WriteNow(p)
			if err != nil {
				// The child is gone or the PTY closed: teardown or
				// exit will say so; input has nowhere to go.
				s.writeMu.Unlock()
				return nil
			}
			if n == len(p) {
				s.writeMu.Unlock()
				s.wrote()
				return nil
			}
			p = p[n:]
		}
		// Queued before the lock goes, so no direct write overtakes it.
		err := s.enqueue(p)
		s.writeMu.Unlock()
		return err
	}
	return s.enqueue(p)
}

// enqueue hands p to the writer goroutine, starting it if need be.
func (s *Session) enqueue(p []byte) error {
	if !s.writerOn.Load() {
		s.startWriter()
	}
	s.queued.Add(1)
	select {
	case s.input <- append([]byte(nil), p...):
		return nil
	case <-s.inputDone:
		s.queued.Add(-1)
		return ErrInputClosed
	default:
		s.queued.Add(-1)
		return ErrInputFull
	}
}

// wrote tells the pacer that input reached the child: it may answer at
// once (an echo, or the next step of a dialogue of queries and
// replies), so its reader reads without waiting out a pace.
func (s *Session) wrote() {
	if s.opts.Pacer != nil {
		s.opts.Pacer.Hurry()
	}
}

// writeLoop writes the queued input in order, waiting as long as the
// PTY is full.
func (s *Session) writeLoop() {
	for {
		select {
		case p := <-s.input:
			s.writeMu.Lock()
			_, err := s.pty.Write(p)
			s.queued.Add(-1)
			s.writeMu.Unlock()
			if err == nil {
				s.wrote()
			}
			// On an error the child is gone or the PTY closed:
			// teardown or exit will say so; input has nowhere to go.
		case <-s.inputDone:
			return
		}
	}
}
