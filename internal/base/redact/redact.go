// Package redact keeps credentials out of what git-queen shows and writes.
// A remote may be given or configured as a URL with a token in it
// (https://user:TOKEN@host/..., as CI scripts give them); every message,
// result, state file and lock note that names a remote goes through one
// reading of a URL's user information, here, so that none of them leaves
// a part of the password behind (a password may hold a raw '@').
package redact

import "strings"

// Password is s without the password of its user information when s is
// a scheme:// URL (https://user@host/...); anything else as it is.
func Password(s string) string {
	prefix, userinfo, rest, ok := split(s)
	if !ok {
		return s
	}
	user, _, hasPassword := strings.Cut(userinfo, ":")
	if !hasPassword {
		return s
	}
	return prefix + user + "@" + rest
}

// Userinfo is s without any of its user information when s is a
// scheme:// URL (https://host/...), as git shows URLs in its messages.
func Userinfo(s string) string {
	prefix, _, rest, ok := split(s)
	if !ok {
		return s
	}
	return prefix + rest
}

// InText is s, any text (a command line), with the password of every
// scheme:// URL in it left out (Password), wherever the URL starts
// (--remote=https://user:TOKEN@host/ too).
func InText(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "://")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		start := i
		for start > 0 && isSchemeByte(s[start-1]) {
			start--
		}
		end := i + len("://")
		for end < len(s) && !strings.ContainsRune(" \t\n/?#", rune(s[end])) {
			end++
		}
		b.WriteString(s[:start])
		b.WriteString(Password(s[start:end]))
		s = s[end:]
	}
}

// split cuts a scheme:// URL into what comes before its user information
// ("https://"), the user information (up to the authority's last '@'),
// and what follows the '@'. ok is false for anything else, or a URL
// without user information.
func split(s string) (prefix, userinfo, rest string, ok bool) {
	scheme, after, found := strings.Cut(s, "://")
	if !found || !isScheme(scheme) {
		return "", "", "", false
	}
	end := len(after)
	if i := strings.IndexAny(after, "/?#"); i >= 0 {
		end = i
	}
	at := strings.LastIndexByte(after[:end], '@')
	if at < 0 {
		return "", "", "", false
	}
	return scheme + "://", after[:at], after[at+1:], true
}

// isScheme says whether s is a URL scheme: a letter, then letters,
// digits, '+', '-' and '.'.
func isScheme(s string) bool {
	if s == "" || !isLetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isSchemeByte(s[i]) {
			return false
		}
	}
	return true
}

// isSchemeByte says whether c may stand in a scheme after its first letter.
func isSchemeByte(c byte) bool {
	return isLetter(c) || '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
