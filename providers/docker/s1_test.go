package docker

import (
	"context"
	"errors"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/sandmux/sandmux/providers"
)

// openFDs counts this process's descriptors, after dropping the test
// client's idle connections so that only the provider's count.
func openFDs(t *testing.T) int {
	t.Helper()
	_ = engineC.Close() // Best effort: it only closes idle connections.
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// checkSettled fails unless descriptors are back to before. Closing is
// synchronous, but a dial the transport gave up may still be unwinding;
// there is no event for it. The bound is well under the transport's idle
// timeout (30s), which would otherwise hide a connection never closed.
func checkSettled(t *testing.T, before int) {
	t.Helper()
	within(t, 3*time.Second, "descriptors did not settle", func() bool {
		return openFDs(t) <= before
	})
}

// TestContract_S1_CancelWhileConnecting: cancelling while the dial to the
// engine is in flight returns the cause and leaves no connection, dial or
// goroutine behind.
func TestContract_S1_CancelWhileConnecting(t *testing.T) {
	needDocker(t)
	ignore := goleak.IgnoreCurrent()
	before := openFDs(t)
	ctx, cancel := context.WithCancelCause(t.Context())
	cause := errors.New("user closed the pane")
	var dials atomic.Int32
	testHookDial = func(dctx context.Context) {
		if dials.Add(1) == 1 {
			cancel(cause)
			<-dctx.Done() // held until Open gives the dial up
		}
	}
	defer func() { testHookDial = nil }()
	_, err := New().Open(ctx, imageSpec(t, "sleep", "1000"))
	if !errors.Is(err, cause) {
		t.Fatalf("Open = %v, want the cancellation cause", err)
	}
	if dials.Load() == 0 {
		t.Fatal("the dial gate never ran")
	}
	checkSettled(t, before)
	goleak.VerifyNone(t, ignore)
}

// TestContract_S1_CancelAtEachStep: cancelling before each step that
// creates something on the engine (the step still completes, so that what
// it made is known) removes the container Open created before Open
// returns, and leaves no descriptor or goroutine.
func TestContract_S1_CancelAtEachStep(t *testing.T) {
	needDocker(t)
	for _, step := range []string{stepCreate, stepStart, stepExecCreate, stepExecStart, stepStarted} {
		t.Run(step, func(t *testing.T) {
			spec := imageSpec(t, "sh", "-c", "sleep 1004 & sleep 1004")
			err, reached := openCancelledAt(t, spec, step)
			if !reached {
				t.Fatalf("the gate at %s never ran", step)
			}
			if err == nil {
				t.Fatal("Open succeeded")
			}
			for _, c := range containersOf(t, spec.Name) {
				t.Errorf("container %v (%s) left after a start cancelled at %s", c.Names, c.State, step)
			}
		})
	}
}

// TestContract_S1_CancelAttachedExec: in a container sandmux did not
// create, a start cancelled once the exec's start was sent kills the
// exec's session (it would outlive its connection) before Open returns.
func TestContract_S1_CancelAttachedExec(t *testing.T) {
	needDocker(t)
	name := runningContainer(t)
	for _, step := range []string{stepExecCreate, stepExecStart, stepStarted} {
		t.Run(step, func(t *testing.T) {
			spec := containerSpec(t, name, "sh", "-c", "sleep 1005 & sleep 1005")
			err, reached := openCancelledAt(t, spec, step)
			if !reached || err == nil {
				t.Fatalf("gate reached %v, Open error %v", reached, err)
			}
			// SIGKILL was delivered before Open returned; the kernel may
			// still be tearing the processes down.
			eventually(t, "the cancelled exec's processes are still running", func() bool {
				return count(processes(t, name), "sleep 1005") == 0
			})
			if _, running := exists(t, name); !running {
				t.Error("the attached container stopped")
			}
		})
	}
}

// openCancelledAt opens spec with a gate that cancels at step, and checks
// that the error is the cause and that descriptors and goroutines settle.
func openCancelledAt(t *testing.T, spec providers.Spec, step string) (err error, reached bool) {
	t.Helper()
	ignore := goleak.IgnoreCurrent()
	before := openFDs(t)
	ctx, cancel := context.WithCancelCause(t.Context())
	cause := errors.New("cancelled at " + step)
	testHookStep = func(_ context.Context, s string) {
		if s == step {
			reached = true
			cancel(cause)
		}
	}
	defer func() { testHookStep = nil }()
	p, err := New().Open(ctx, spec)
	if p != nil {
		_ = p.Close()
	}
	if err != nil && !errors.Is(err, cause) {
		t.Errorf("Open = %v, want the cancellation cause first", err)
	}
	checkSettled(t, before)
	goleak.VerifyNone(t, ignore)
	return err, reached
}
