package serve

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sandmux/sandmux/attach"
)

// attachFor is an Attacher whose attachments last until release closes.
type attachFor struct{ release <-chan struct{} }

var errEnded = errors.New("ended")

func (a attachFor) Attach(ctx context.Context, _ attach.Stream) error {
	<-a.release
	return errEnded
}

// The server trims once an attachment ran trimAfter, once, and not for
// one that ended before: that one's wait ends with it, and Attach
// returns the attacher's own error either way.
func TestTrimOnAttachWaitsOutTheStart(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lasts time.Duration
		trims int
	}{
		{"ended first", trimAfter / 2, 0},
		{"ran on", 3 * trimAfter, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				trims := 0
				release := make(chan struct{})
				tr := trimOnAttach{Attacher: attachFor{release}, trim: func() { trims++ }}
				ended := make(chan error, 1)
				start := time.Now()
				go func() { ended <- tr.Attach(t.Context(), nil) }()
				time.Sleep(tc.lasts) // the bubble's clock: no real wait
				close(release)
				if err := <-ended; !errors.Is(err, errEnded) {
					t.Errorf("Attach = %v, want the attacher's own error", err)
				}
				if waited := time.Since(start); waited != tc.lasts {
					t.Errorf("an attachment of %v returned after %v", tc.lasts, waited)
				}
				if trims != tc.trims {
					t.Errorf("trimmed %d times, want %d", trims, tc.trims)
				}
			})
		})
	}
}
