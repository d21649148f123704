package vt

import "testing"

// A bell and a notification reach TakeSignals once each, with the
// notification's text; progress reports (OSC 9;4) are neither.
func TestSignals(t *testing.T) {
	s := New(20, 3)
	defer s.Close()
	if sig := s.TakeSignals(); sig.Bell || sig.HasNotice {
		t.Fatalf("fresh screen: %+v", sig)
	}
	s.Write("a\a")
	if sig := s.TakeSignals(); !sig.Bell || sig.HasNotice {
		t.Errorf("after BEL: %+v, want a bell only", sig)
	}
	s.Write("\x1b]9;build done\x07")
	if sig := s.TakeSignals(); sig.Bell || sig.Notice != "build done" {
		t.Errorf("after OSC 9: %+v, want the notice", sig)
	}
	s.Write("\x1b]777;notify;agent;needs input\x1b\\")
	if sig := s.TakeSignals(); sig.Notice != "agent: needs input" {
		t.Errorf("after OSC 777: %+v", sig)
	}
	s.Write("\x1b]9;4;1;50\x07")
	if sig := s.TakeSignals(); sig.Bell || sig.HasNotice {
		t.Errorf("a progress report gave %+v", sig)
	}
	if sig := s.TakeSignals(); sig.Bell || sig.HasNotice {
		t.Errorf("signals not cleared: %+v", sig)
	}
}
