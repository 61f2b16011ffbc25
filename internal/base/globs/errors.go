package globs

import (
	"errors"
	"fmt"
)

// The rules a pattern can break. Every error the package returns for a bad
// pattern is a *PatternError that wraps exactly one of these, so a caller can
// pick its reaction with errors.Is while the person reading the message gets
// the pattern, the rule and what to do about it.
var (
	// ErrEmpty: an empty pattern reserves nothing anyone could name.
	ErrEmpty = errors.New("empty pattern")
	// ErrTooLong: longer patterns than MaxLen are not paths anyone types, and
	// refusing them bounds the work a single pattern can cause.
	ErrTooLong = errors.New("pattern too long")
	// ErrEncoding: git paths typed by people and agents are UTF-8, and
	// doublestar decodes invalid bytes to U+FFFD, which would make a pattern
	// match paths that look nothing like it.
	ErrEncoding = errors.New("pattern is not valid UTF-8")
	// ErrNUL: git paths cannot contain NUL, so such a pattern is a mistake.
	ErrNUL = errors.New("pattern contains a NUL byte")
	// ErrSyntax: doublestar.ValidatePattern rejects the pattern.
	ErrSyntax = errors.New("invalid glob syntax")
	// ErrAbsolute: reservations name paths relative to the repository root,
	// the only form git shows a hook.
	ErrAbsolute = errors.New("absolute path")
	// ErrDotDot: git paths never contain "..", so the segment can only be a
	// mistake, and one that would reach outside the repository.
	ErrDotDot = errors.New(`".." segment`)
	// ErrDot: git paths never contain "." segments; "./src" matches nothing.
	ErrDot = errors.New(`"." segment`)
	// ErrEmptySegment: git paths never contain "//".
	ErrEmptySegment = errors.New("empty path segment")
	// ErrBackslash: a backslash escapes the next character, so "src\api" means
	// "srcapi"; it is almost always a Windows separator typed by mistake.
	ErrBackslash = errors.New("backslash before an ordinary character")
	// ErrMatchesNothing: no git path matches the pattern, so reserving it
	// would protect nothing (for example "[/]" or "a/{..}/b").
	ErrMatchesNothing = errors.New("pattern matches no git path")
	// ErrBeneathFile: the pattern's literal directory is a file of the
	// repository (or lies beneath one), so every path it names would use
	// that file as a directory; such a pattern protects nothing and
	// would conflict with others through paths that cannot exist.
	ErrBeneathFile = errors.New("pattern reaches beneath a file")
	// ErrTooComplex: the pattern's automaton, or the search for a common
	// path, would exceed the work budget. Only contrived patterns get here
	// (many ? or [...] after a * when a class such as [!a] could match '/',
	// or many "*/" segments after a "**/"); NormalizeIn refuses them up front
	// so that comparing stored patterns stays fast.
	ErrTooComplex = errors.New("too complex to compare exactly")
)

// PatternError says which pattern broke which rule and what to do instead.
type PatternError struct {
	Pattern string
	// Err is one of the package's sentinel errors.
	Err error
	// Hint tells a person how to fix the pattern.
	Hint string
}

// Error names the pattern, the rule and the fix in one line, the form the
// command line prints.
func (e *PatternError) Error() string {
	if e.Hint == "" {
		return fmt.Sprintf("pattern %q: %v", e.Pattern, e.Err)
	}
	return fmt.Sprintf("pattern %q: %v: %s", e.Pattern, e.Err, e.Hint)
}

// Unwrap lets errors.Is find the rule.
func (e *PatternError) Unwrap() error { return e.Err }

func patternError(pattern string, rule error, hint string, args ...any) error {
	return &PatternError{Pattern: pattern, Err: rule, Hint: fmt.Sprintf(hint, args...)}
}
