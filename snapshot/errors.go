package snapshot

import (
	"context"
	"errors"
	"fmt"
)

// Sentinel errors, matched with errors.Is. A *MemberError wraps one of them.
var (
	// ErrUnsafe marks a member refused by a safety rule (W5).
	ErrUnsafe = errors.New("unsafe member")
	// ErrLimit marks an archive that exceeds the configured limits.
	ErrLimit = errors.New("limit exceeded")
	// ErrCorrupt marks an archive that is truncated, damaged or not an
	// archive at all.
	ErrCorrupt = errors.New("corrupt archive")
	// ErrChecksum marks an archive whose bytes do not match its manifest.
	ErrChecksum = errors.New("archive does not match its manifest")
	// ErrNotEmpty is returned when restoring into a non-empty workspace
	// without Replace.
	ErrNotEmpty = errors.New("workspace is not empty")
)

// MemberError is a refusal or failure tied to one archive member (or, for
// damage between members, to the last good one).
type MemberError struct {
	// Member is the member's name as written in the archive.
	Member string
	// Reason says what is wrong, in words.
	Reason string
	// Err is the sentinel (ErrUnsafe, ErrLimit, ErrCorrupt) or the
	// underlying I/O error.
	Err error
}

func (e *MemberError) Error() string {
	if e.Err == nil || e.Err == ErrCorrupt || errors.Is(e.Err, ErrUnsafe) || errors.Is(e.Err, ErrLimit) {
		return fmt.Sprintf("member %q: %s", e.Member, e.Reason)
	}
	return fmt.Sprintf("member %q: %s: %v", e.Member, e.Reason, e.Err)
}

func (e *MemberError) Unwrap() error { return e.Err }

func refuse(member, format string, args ...any) *MemberError {
	return &MemberError{Member: member, Reason: fmt.Sprintf(format, args...), Err: ErrUnsafe}
}

func overLimit(member, format string, args ...any) *MemberError {
	return &MemberError{Member: member, Reason: fmt.Sprintf(format, args...), Err: ErrLimit}
}

func corrupt(member, reason string, err error) *MemberError {
	if err == nil {
		err = ErrCorrupt
	} else {
		err = fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return &MemberError{Member: member, Reason: reason, Err: err}
}

// settle applies contracts W3 and C2-C4 to the result of an operation whose
// worker has already stopped: when ctx was cancelled, the caller sees its
// cause first and the worker's own failure, if any, is joined behind it;
// without cancellation the worker's error is returned unchanged.
func settle(ctx context.Context, err error) error {
	if ctx.Err() == nil {
		return err
	}
	cause := context.Cause(ctx)
	if err == nil || err == cause {
		return cause
	}
	return errors.Join(cause, err)
}
