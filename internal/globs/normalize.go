package globs

import (
	"errors"
	"io/fs"
	"syscall"
)

// DirFunc answers "is path an existing directory?" for ExpandDir. Taking a
// function keeps this package free of the working directory: the reserve
// command can ask the file system, the pre-commit hook the index, and tests
// a map.
type DirFunc func(path string) (bool, error)

// DirFS asks an fs.FS (such as os.DirFS of the repository root). A missing
// path, or one that runs through a file, is simply not a directory.
func DirFS(fsys fs.FS) DirFunc {
	return func(path string) (bool, error) {
		fi, err := fs.Stat(fsys, path)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		return fi.IsDir(), nil
	}
}

// Normalize is the gate every new reservation pattern passes before it is
// stored: it applies the rules (see the package documentation), turns a
// trailing "/" into "/**", and refuses a pattern no git path can match or
// one too complex to compare cheaply (ErrTooComplex).
// The pre-commit hook and Compile apply the same rules, so a stored pattern
// means the same thing everywhere.
func Normalize(pattern string) (string, error) {
	return ExpandDir(pattern, nil)
}

// ExpandDir is Normalize plus the reserve command's directory rule: a
// pattern without wildcards that names an existing directory, such as
// "src/components", reserves everything under it, "src/components/**".
// isDir may be nil, which makes ExpandDir the same as Normalize.
func ExpandDir(pattern string, isDir DirFunc) (string, error) {
	norm, err := check(pattern)
	if err != nil {
		return "", err
	}
	if isDir != nil {
		if lit, ok := literalText(norm); ok {
			dir, err := isDir(lit)
			if err != nil {
				return "", err
			}
			if dir {
				norm += "/**"
			}
		}
	}
	if err := newPattern(norm).vet(pattern); err != nil {
		return "", err
	}
	return norm, nil
}

// vet is the part of Normalize that needs the automaton: it refuses a
// pattern whose automaton is too big to compare cheaply, or that no git
// path matches.
func (p *Pattern) vet(orig string) error {
	if p.literal {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	m := p.machine()
	if !m.explore(gateStates) {
		return patternError(orig, ErrTooComplex,
			"simplify it: fewer ? or [...] between two *, or fewer */ after **/")
	}
	if p.subtree && p.dir != "" {
		return nil // it matches dir
	}
	if _, ok, err := search(m, nil, "", []start{{g: gStart}}); err != nil {
		return patternError(orig, ErrTooComplex, "simplify it")
	} else if !ok {
		return patternError(orig, ErrMatchesNothing,
			"git paths are relative, '/'-separated, and have no empty, '.' or '..' segments")
	}
	return nil
}
