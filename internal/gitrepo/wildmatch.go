package gitrepo

import "strings"

// wildmatch is git's wildmatch.c without bracket expressions (callers
// leave a pattern holding '[' to git): pattern against text, with '*' and
// '?' stopping at '/' when pathname is set (WM_PATHNAME), and "**" between
// slashes crossing directories. It is ported line for line, aborts
// included, because git's attribute and ignore rules are defined by what
// that code does rather than by a grammar.
func wildmatch(pattern, text string, pathname bool) bool {
	return dowild(pattern, text, pathname) == wmMatch
}

// What dowild can answer: the aborts tell an enclosing '*' to stop trying.
const (
	wmMatch = iota
	wmNoMatch
	wmAbortAll
	wmAbortToStarStar
)

// charAt is s[i], or NUL past its end, as C's strings read.
func charAt(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

func dowild(p, text string, pathname bool) int {
	pi, ti := 0, 0
	for ; pi < len(p); pi, ti = pi+1, ti+1 {
		pch, tch := p[pi], charAt(text, ti)
		if tch == 0 && pch != '*' {
			return wmAbortAll
		}
		switch pch {
		case '*':
		case '?':
			if pathname && tch == '/' {
				return wmNoMatch
			}
			continue
		case '\\': // the next character, literally
			pi++
			pch = charAt(p, pi)
			fallthrough
		default:
			if tch != pch {
				return wmNoMatch
			}
			continue
		}
		matchSlash := !pathname
		if pi++; charAt(p, pi) == '*' {
			prev := pi - 2
			for pi++; charAt(p, pi) == '*'; pi++ {
			}
			next := charAt(p, pi)
			matchSlash = false
			if (prev < 0 || p[prev] == '/') && (next == 0 || next == '/' || (next == '\\' && charAt(p, pi+1) == '/')) {
				if next == '/' && dowild(p[pi+1:], text[ti:], pathname) == wmMatch {
					return wmMatch
				}
				matchSlash = true
			}
		}
		if pi >= len(p) { // a trailing star
			if !matchSlash && strings.IndexByte(text[ti:], '/') >= 0 {
				return wmNoMatch
			}
			return wmMatch
		}
		if !matchSlash && p[pi] == '/' { // one star and a slash: the rest of this directory
			slash := strings.IndexByte(text[ti:], '/')
			if slash < 0 {
				return wmNoMatch
			}
			ti += slash
			continue
		}
		for ; tch != 0; ti++ {
			if pc := p[pi]; !strings.ContainsRune(`*?[\`, rune(pc)) {
				// Skip ahead to the literal that follows the star.
				for tch = charAt(text, ti); tch != 0 && (matchSlash || tch != '/') && tch != pc; tch = charAt(text, ti) {
					ti++
				}
				if tch != pc {
					if matchSlash {
						return wmAbortAll
					}
					return wmAbortToStarStar
				}
			}
			if m := dowild(p[pi:], text[ti:], pathname); m != wmNoMatch {
				if !matchSlash || m != wmAbortToStarStar {
					return m
				}
			} else if !matchSlash && tch == '/' {
				return wmAbortToStarStar
			}
			tch = charAt(text, ti+1)
		}
		return wmAbortAll
	}
	if ti < len(text) {
		return wmNoMatch
	}
	return wmMatch
}
