package termsize

import "testing"

func TestClamp(t *testing.T) {
	for _, c := range []struct {
		w, h, cw, ch int
		clamped      bool
	}{
		{80, 24, 80, 24, false},
		{MaxWidth, MaxHeight, MaxWidth, MaxHeight, false},
		{MaxWidth + 1, 24, MaxWidth, 24, true},
		{80, MaxHeight + 1, 80, MaxHeight, true},
		{65535, 65535, MaxWidth, MaxHeight, true},
		{1 << 40, 1 << 40, MaxWidth, MaxHeight, true},
		{0, 0, 0, 0, false},
		{-5, 30, -5, 30, false},
	} {
		cw, ch, clamped := Clamp(c.w, c.h)
		if cw != c.cw || ch != c.ch || clamped != c.clamped {
			t.Errorf("Clamp(%d, %d) = %d, %d, %v; want %d, %d, %v", c.w, c.h, cw, ch, clamped, c.cw, c.ch, c.clamped)
		}
	}
}
