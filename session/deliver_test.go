package session

import (
	"strings"
	"testing"
	"testing/synctest"

	"github.com/sandmux/sandmux/providers"
)

// TestReadsSettledByReaderAndConsumerKeepOrder: short reads the reader
// settles itself and large ones it hands to the consumer, interleaved and
// with a character split across them, reach the sink whole and in order.
func TestReadsSettledByReaderAndConsumerKeepOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakePTY()
		m := managerWith(f)
		sink := &textSink{}
		opts := testOpts
		opts.Sinks = []Sink{sink}
		s := start(t, m, opts)

		var want strings.Builder
		for i := range 12 {
			chunk := strings.Repeat(string(rune('a'+i)), 3)
			if i%3 == 1 {
				chunk = strings.Repeat(string(rune('A'+i)), handOff+100)
			}
			if i%4 == 2 {
				chunk += "\xc3" // the next read completes é
			}
			if i%4 == 3 {
				chunk = "\xa9" + chunk
			}
			f.output <- []byte(chunk)
			want.WriteString(chunk)
			if i%2 == 0 {
				synctest.Wait() // let a window run between some reads
			}
		}
		close(f.output)
		f.exit(providers.ExitStatus{})
		<-s.Exited()
		if got := sink.String(); got != want.String() {
			t.Errorf("sink got %d bytes, want %d; the first difference at %d", len(got), want.Len(), firstDiff(got, want.String()))
		}
		shutdownAll(t, m)
	})
}

func firstDiff(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
