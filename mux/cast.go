package mux

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// maxNameInFile bounds the pane's name in a file name.
const maxNameInFile = 64

// safeName is a pane's name as part of a file name: letters, digits, '.',
// '_' and '-' kept, anything else '_', never starting with '.'.
func safeName(name string) string {
	var b strings.Builder
	for _, r := range name {
		if b.Len() >= maxNameInFile {
			break
		}
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		case r == '.' && b.Len() > 0:
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "pane"
	}
	return b.String()
}

// CreateCast creates a new cast file: path, or, when path is "", one
// named after the pane and the time in dir (made if missing). It never
// overwrites a file.
func CreateCast(dir, path, name string, now time.Time) (*os.File, string, error) {
	if path != "" {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return nil, path, fmt.Errorf("create the cast: %w (give a file that does not exist yet)", err)
		}
		return f, path, nil
	}
	if dir == "" {
		return nil, "", errors.New("no directory for recordings: set [record] dir, or give a file")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, "", fmt.Errorf("make the recordings directory: %w (check [record] dir)", err)
	}
	base := filepath.Join(dir, safeName(name)+"-"+now.Format("20060102-150405"))
	for n := 1; n <= 100; n++ {
		path = base + ".cast"
		if n > 1 {
			path = fmt.Sprintf("%s-%d.cast", base, n)
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			return f, path, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, path, fmt.Errorf("create the cast: %w (check [record] dir)", err)
		}
	}
	return nil, base, errors.New("create the cast: 100 casts of that name this second already; try again")
}
