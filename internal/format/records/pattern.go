package records

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/git-queen/git-queen/internal/base/globs"
)

// NormalizePattern is the one form a reservation pattern is stored in: the
// rules and normalisations of package globs ("src/" means "src/**"; with
// kind, what the repository says a literal path names: a file stays
// itself, a directory "src/components" or a path that does not exist yet
// becomes "src/components/**"; see globs.NormalizeIn), in Unicode NFC,
// without control characters. kind may be nil: a stored pattern is final,
// and NormalizePattern(p, nil) keeps it. reserve stores what it returns,
// and CheckVersion refuses a received pattern that it would change, so
// every clone compares the same patterns. A bad pattern is an
// InvalidError or a *globs.PatternError.
func NormalizePattern(pattern string, kind globs.KindFunc) (string, error) {
	for _, r := range pattern {
		if unicode.IsControl(r) {
			return "", Invalidf("pattern %q holds a control character (%U); paths in a repository have none, "+
				"and one would be printed to other droids' terminals", pattern, r)
		}
	}
	return globs.NormalizeIn(norm.NFC.String(pattern), kind)
}

// checkStoredPattern is the pattern rule of CheckVersion: nil when
// NormalizePattern keeps the pattern as it is. Vetting a pattern builds
// its automaton (about 10 µs for src/**, 8 ms for a 4 KiB pattern of
// wildcards), and a log repeats its patterns (every renewal and release
// is a new version), so verdicts are remembered, a bounded number of them.
func checkStoredPattern(p string) error {
	verdicts.Lock()
	err, ok := verdicts.m[p]
	verdicts.Unlock()
	if ok {
		return err
	}
	n, err := NormalizePattern(p, nil)
	var bad *globs.PatternError
	switch {
	case errors.As(err, &bad):
		err = fmt.Errorf("pattern %s: %v (%s)", quote(p), bad.Err, bad.Hint)
	case err != nil:
		err = fmt.Errorf("pattern %s holds a control character", quote(p))
	case n != p:
		err = fmt.Errorf("pattern %s is stored as %s by reserve", quote(p), quote(n))
	}
	if len(p) <= maxRemembered {
		verdicts.Lock()
		if len(verdicts.m) >= maxVerdicts {
			clear(verdicts.m)
		}
		verdicts.m[p] = err
		verdicts.Unlock()
	}
	return err
}

// checkPatternText is the cheap part of the pattern rule: the pattern is in
// Unicode's composed form and holds no control character.
func checkPatternText(p string) error {
	if strings.ContainsFunc(p, unicode.IsControl) {
		return fmt.Errorf("pattern %s holds a control character", quote(p))
	}
	if !norm.NFC.IsNormalString(p) {
		return fmt.Errorf("pattern %s is not in the composed Unicode form reserve stores", quote(p))
	}
	return nil
}

// The verdicts remembered: at most maxVerdicts, of patterns at most
// maxRemembered bytes long (the patterns people type; a hostile log of
// long ones must not fill memory), 1 MiB at most.
const (
	maxVerdicts   = 4096
	maxRemembered = 256
)

var verdicts = struct {
	sync.Mutex
	m map[string]error
}{m: map[string]error{}}
