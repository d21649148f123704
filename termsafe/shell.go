package termsafe

import "strings"

// ShellQuote joins words as a shell would need them typed, so that a
// printed command can be pasted. It is safe to print: a word String
// would escape is written $'…' with String's escapes, which bash, zsh
// and ksh read back as the word.
func ShellQuote(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		switch {
		case w != "" && !strings.ContainsFunc(w, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
		}):
			quoted[i] = w
		case !Safe(w):
			quoted[i] = "$'" + strings.ReplaceAll(String(w), "'", `\'`) + "'"
		default:
			quoted[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return strings.Join(quoted, " ")
}
