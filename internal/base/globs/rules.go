package globs

import (
	"strings"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
)

// MaxLen bounds a pattern's length in bytes; git itself refuses longer paths
// on most systems, and the bound caps the work one pattern can cause.
const MaxLen = 4096

// check applies the rules that need no automaton and the trailing-slash
// normalisation; it is all Compile does before building a pattern.
func check(pattern string) (string, error) {
	switch {
	case pattern == "":
		return "", patternError(pattern, ErrEmpty, "name a file, a directory or a glob such as src/**")
	case len(pattern) > MaxLen:
		return "", patternError(pattern[:40]+"...", ErrTooLong, "at most %d bytes", MaxLen)
	case !utf8.ValidString(pattern):
		return "", patternError(pattern, ErrEncoding, "write the path in UTF-8")
	case strings.IndexByte(pattern, 0) >= 0:
		return "", patternError(pattern, ErrNUL, "git paths cannot contain NUL")
	case !doublestar.ValidatePattern(pattern):
		return "", patternError(pattern, ErrSyntax, "%s", syntaxHint(pattern))
	}
	norm := pattern
	if strings.HasSuffix(norm, "/") {
		norm += "**"
	}
	if err := checkSegments(pattern, norm); err != nil {
		return "", err
	}
	return norm, nil
}

// syntaxHint says why doublestar.ValidatePattern refused s, following its
// scan.
func syntaxHint(s string) string {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i++; i >= len(s) {
				return `it ends with a lone backslash; write \\ for a literal backslash`
			}
		case '[':
			j := i + 1
			if j < len(s) && (s[j] == '!' || s[j] == '^') {
				j++
			}
			if j < len(s) && s[j] == ']' {
				return `empty character class; write \[ for a literal [`
			}
			end := classEnd(s, i)
			if end < 0 {
				return `"[" is never closed; write \[ for a literal [`
			}
			i = end - 1
		case '{':
			depth++
		case '}':
			if depth == 0 {
				return `"}" without "{"; write \} for a literal }`
			}
			depth--
		}
	}
	if depth > 0 {
		return `"{" is never closed; write \{ for a literal {`
	}
	return "doublestar cannot parse it"
}

// checkSegments splits the (normalised) pattern at every '/' outside a
// character class, escaped or not, and refuses absolute patterns, empty
// segments, segments that are exactly "." or "..", and backslashes before
// letters or digits. Segments with wildcards or braces are left to the
// automaton: "{..}/a" is refused later because it matches nothing.
func checkSegments(orig, p string) error {
	start, literal, escaped := 0, true, false
	end := func(i, next int) error {
		seg := p[start:i]
		if escaped {
			seg, _ = literalText(seg)
		}
		switch {
		case i == start && start == 0:
			return patternError(orig, ErrAbsolute, "reservations are relative to the repository root; drop the leading /")
		case i == start:
			return patternError(orig, ErrEmptySegment, `git paths never contain "//"; remove the extra /`)
		case literal && seg == "..":
			return patternError(orig, ErrDotDot, "git paths never contain ..; write the path from the repository root")
		case literal && seg == ".":
			return patternError(orig, ErrDot, `git paths never contain "." segments; drop the "./"`)
		}
		start, literal, escaped = next, true, false
		return nil
	}
	for i := 0; i < len(p); {
		switch p[i] {
		case '\\':
			r, sz := utf8.DecodeRuneInString(p[i+1:])
			if r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
				return patternError(orig, ErrBackslash, `\%c means %c; separate directories with /, not \`, r, r)
			}
			if r == '/' {
				if err := end(i, i+2); err != nil {
					return err
				}
			} else {
				escaped = true
			}
			i += 1 + sz
		case '/':
			if err := end(i, i+1); err != nil {
				return err
			}
			i++
		case '[':
			i = classEnd(p, i)
			literal = false
		case '*', '?', '{', '}':
			literal = false
			i++
		default:
			i++
		}
	}
	return end(len(p), len(p))
}

// literalText unescapes a pattern without wildcards or braces; ok is false
// if it has any (or ends in a lone backslash).
func literalText(p string) (string, bool) {
	plain := true
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '*', '?', '[', '{':
			return "", false
		case '\\':
			plain = false
			i++
		}
	}
	if plain {
		return p, true
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '\\' {
			if i++; i == len(p) {
				return "", false
			}
		}
		b.WriteByte(p[i])
	}
	return b.String(), true
}

// Escape returns the pattern that matches exactly path, its glob
// characters escaped: check asks whether anything in a directory named
// "we*ird" is held by comparing "we\*ird/**" with each reservation.
func Escape(path string) string {
	if !strings.ContainsAny(path, `*?[]{}\`) {
		return path
	}
	var b strings.Builder
	for _, r := range path {
		if strings.ContainsRune(`*?[]{}\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
