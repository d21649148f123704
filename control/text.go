package control

import (
	"fmt"
	"strings"
)

// Unescape turns `ctl send`'s TEXT into bytes: \n, \r, \t, \e (ESC), \\ and
// \xHH (any byte) are escapes; every other character stands for itself. A
// backslash that starts no escape is an error, so a typo is not typed.
func Unescape(s string) ([]byte, error) {
	if !strings.Contains(s, `\`) {
		return []byte(s), nil
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			out = append(out, s[i])
			continue
		}
		if i+1 >= len(s) {
			return nil, fmt.Errorf(`text ends in a lone backslash: write \\ for one`)
		}
		i++
		switch s[i] {
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'e':
			out = append(out, 0x1b)
		case '\\':
			out = append(out, '\\')
		case 'x':
			if i+2 >= len(s) || unhex(s[i+1]) < 0 || unhex(s[i+2]) < 0 {
				return nil, fmt.Errorf(`\x at byte %d needs two hex digits, as in \x1b`, i-1)
			}
			out = append(out, byte(unhex(s[i+1])<<4|unhex(s[i+2])))
			i += 2
		default:
			return nil, fmt.Errorf(`unknown escape \%c at byte %d: use \n \r \t \e \\ or \xHH`, s[i], i-1)
		}
	}
	return out, nil
}

func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}
