package session

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sandmux/sandmux/providers"
)

// The first teardown request's reason is kept, and the hook's progress
// shows as the session's stage.
func TestTeardownReasonAndHookStage(t *testing.T) {
	for _, tc := range []struct {
		name string
		do   func(m *Manager, id ID)
		want Reason
	}{
		{"close", func(m *Manager, id ID) { _ = m.Close(context.Background(), id) }, ReasonClose},
		{"kill", func(m *Manager, id ID) { _ = m.Kill(context.Background(), id) }, ReasonKill},
		{"shutdown", func(m *Manager, id ID) { _ = m.Shutdown(context.Background()) }, ReasonShutdown},
		{"killall", func(m *Manager, id ID) { m.KillAll(); m.Wait() }, ReasonShutdown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				m := managerWith(newFakePTY())
				var stages []string
				var s *Session
				opts := testOpts
				opts.AfterTeardown = func(_ context.Context, info Info, stage func(string)) (string, error) {
					stage("snapshot: 3 files")
					stages = append(stages, s.Info().Stage)
					return "", nil
				}
				s = start(t, m, opts)
				tc.do(m, s.ID())
				m.Wait()
				if got := s.Info().Reason; got != tc.want {
					t.Errorf("reason = %v, want %v", got, tc.want)
				}
				if len(stages) != 1 || stages[0] != "snapshot: 3 files" {
					t.Errorf("stage seen by the hook = %v", stages)
				}
			})
		})
	}
}

// disconnectPTY is a fake whose connection drops: Read and Wait fail with
// providers.ErrDisconnected and nothing can be signalled or verified.
type disconnectPTY struct{ *fakePTY }

func (d disconnectPTY) Wait(ctx context.Context) (providers.ExitStatus, error) {
	select {
	case <-d.exited:
		return providers.ExitStatus{Unknown: true}, providers.ErrDisconnected
	case <-ctx.Done():
		return providers.ExitStatus{}, context.Cause(ctx)
	}
}

func (d disconnectPTY) GroupAlive() (bool, error) { return false, providers.ErrDisconnected }

// A dropped connection ends the session as exited and disconnected; its
// teardown neither hangs on signals nor claims a verified kill.
func TestDisconnectedSession(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakePTY()
		m := NewManager(providers.Table{"fake": fakeProvider{open: func(context.Context, providers.Spec) (providers.PTY, error) {
			return disconnectPTY{f}, nil
		}}})
		s := start(t, m, testOpts)
		close(f.output)
		f.exit(providers.ExitStatus{})
		<-s.Exited()
		if info := s.Info(); !info.Disconnected || info.State != Exited || !info.Exit.Unknown {
			t.Fatalf("info = %+v, want exited, disconnected, status unknown", info)
		}
		t0 := time.Now()
		if err := m.Close(context.Background(), s.ID()); err != nil {
			t.Errorf("Close = %v", err)
		}
		if d := time.Since(t0); d != 0 || len(f.sentSignals()) != 0 || s.Info().Killed {
			t.Errorf("teardown took %v, signals %v, killed %v; want immediate, none, not killed", d, f.sentSignals(), s.Info().Killed)
		}
		m.Wait()
	})
}

// A Wait that fails though no teardown cancelled the run (the provider
// lost the process) ends the session as exited, status unknown, instead
// of leaving it running with nothing left to wait for.
func TestWaitErrorEndsSessionExited(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakePTY()
		f.waitErr = errors.New("wait: no child processes")
		m := managerWith(f)
		s := start(t, m, testOpts)
		f.exit(providers.ExitStatus{})
		close(f.output)
		<-s.Exited()
		if info := s.Info(); info.State != Exited || !info.ExitKnown || !info.Exit.Unknown {
			t.Errorf("info = %+v, want exited with an unknown status", info)
		}
		if err := m.Close(context.Background(), s.ID()); err != nil {
			t.Fatal(err)
		}
		m.Wait()
	})
}
