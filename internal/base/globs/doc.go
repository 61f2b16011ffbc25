// Package globs decides exactly whether two reservation patterns can match
// a common path, and names one such path, so that `git queen reserve` finds
// every real conflict, and only real ones, and can say "e.g. src/a.ts
// matches both". Guessing with prefixes and cross-matching (QueenBee's
// PatternsOverlap) is wrong both ways: it misses "{lib,src}/a*" against
// "lib/*.ts" and reports "src/**/*.go" against "src/x.ts".
//
// Semantics are those of doublestar.Match (github.com/bmatcuk/doublestar/v4)
// on git paths, quirks included, because that is what the pre-commit hook
// runs: '*' and '?' never match '/', but a class such as [!a] does; "**" is
// special only as a whole segment; "src/**" matches "src" itself; leading
// dots are not special; and the matcher's greedy backtracking means some
// patterns match less than a regular expression would (see vm.go). A git
// path is relative, '/'-separated, and has no empty, "." or ".." segment
// and no NUL: the only paths a hook sees, so the only ones Overlap offers.
//
// # Rules and normalisation
//
// Compile and NormalizeIn refuse, with a *PatternError wrapping
// one sentinel error: the empty pattern (ErrEmpty); patterns over MaxLen
// bytes (ErrTooLong), not UTF-8 (ErrEncoding) or containing NUL (ErrNUL);
// anything doublestar.ValidatePattern refuses, such as a trailing lone
// backslash, "[]" or an unclosed "{" (ErrSyntax); a leading '/'
// (ErrAbsolute); an empty segment, as in "a//b" (ErrEmptySegment); a
// segment that is exactly ".." or "." (ErrDotDot, ErrDot); and a backslash
// before a letter or digit, which is a Windows separator typed by mistake
// ("src\api" would mean "srcapi"; ErrBackslash). Escaping punctuation,
// such as "\*" or "\[", is fine. NormalizeIn, the gate for
// new reservations, also refuses patterns no git path can match, such as
// "[/]" or "{..}/a" (ErrMatchesNothing), and contrived ones whose
// automaton would be too big to compare cheaply (ErrTooComplex).
//
// A pattern ending in '/' means that pattern followed by "**", so "src/"
// is "src/**" (and "a/**/" is "a/**/**", which, unlike "a/**", does not
// match "a"). A stored pattern means exactly what doublestar.Match says:
// "README.md" matches README.md and nothing beneath it. What a literal
// path names in the repository is decided when it is reserved, by
// NormalizeIn, and written into the stored pattern: a file stays itself,
// a directory, a submodule or a path that does not exist yet becomes
// "DIR/**", and a pattern reaching beneath a file is refused
// (ErrBeneathFile). Every clone, whatever it has checked out, then
// compares the same stored patterns the same way, and the pre-commit hook
// compiles them with the same rules, so a pattern means the same thing at
// reserve time and at commit time.
package globs
