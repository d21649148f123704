// Package human writes quantities the way sandmux shows them to people:
// durations without the zero units Go's own formatting appends.
//
// It owns spelling only; it parses nothing (the config reads durations
// with time.ParseDuration) and imports nothing of sandmux's, so the
// config and the UI share it without one importing the other.
package human

import (
	"strings"
	"time"
)

// Duration writes d without the zero units time.Duration.String
// appends ("5m", not "5m0s").
func Duration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}
