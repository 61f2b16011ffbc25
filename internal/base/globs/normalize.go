package globs

import (
	"strings"
)

// PathKind is what a path names in the repository a pattern is reserved
// in. Only a literal pattern's meaning depends on it (see NormalizeIn):
// "README.md" is the file, "src/components" is a directory and everything
// in it.
type PathKind uint8

const (
	// Absent: nothing has the path, so it may become a file or a
	// directory.
	Absent PathKind = iota
	// File: a file or a symbolic link (git never tracks a path beneath
	// either), and no directory, has the path.
	File
	// Dir: a directory (or a submodule) has the path somewhere the oracle
	// looked.
	Dir
	// BeneathFile: one of the path's parent directories is a file, so the
	// path cannot exist.
	BeneathFile
)

// KindFunc answers what a path names. Taking a function keeps this package
// free of git and of the working directory: the reserve command asks the
// repository (HEAD, the index and the worktree), tests a map.
type KindFunc func(path string) (PathKind, error)

// NormalizeIn is the gate every new reservation pattern passes before it is
// stored: it applies the rules (see the package documentation), turns a
// trailing "/" into "/**", and refuses a pattern no git path can match or
// one too complex to compare cheaply (ErrTooComplex). The pre-commit hook
// and Compile apply the same rules, so a stored pattern means the same
// thing everywhere. It also applies what the repository says a literal
// path names, decided once, at reserve time, and written into the stored
// pattern so that every clone, whatever it has checked out, compares the
// same patterns the same way:
//
//   - a pattern without wildcards that names a file, such as "README.md",
//     stays as it is and means that file alone;
//   - one that names a directory or a submodule, such as "src/components",
//     or nothing yet (it may become a directory), is stored as
//     "src/components/**": the path and everything beneath it;
//   - "D/**" (or "D/") where D is a file is stored as D, the file;
//   - a pattern whose literal directory runs through a file, such as
//     "README.md/*.go", matches nothing that can exist, and is refused
//     (ErrBeneathFile).
//
// So a stored pattern never makes a file into a directory, and no
// overlap is ever witnessed by a path beneath a file that existed when the
// pattern was reserved. kind may be nil when the pattern is already in its
// stored form.
func NormalizeIn(pattern string, kind KindFunc) (string, error) {
	norm, err := check(pattern)
	if err != nil {
		return "", err
	}
	if kind != nil {
		if norm, err = resolve(pattern, norm, kind); err != nil {
			return "", err
		}
	}
	if err := newPattern(norm).vet(pattern); err != nil {
		return "", err
	}
	return norm, nil
}

// resolve applies NormalizeIn's repository rules to a checked pattern. It
// asks kind about one path: the literal path, the subtree's directory, or
// the literal directory every match lies in.
func resolve(orig, norm string, kind KindFunc) (string, error) {
	p := newPattern(norm)
	probe := p.lit
	switch {
	case p.literal:
	case p.subtree:
		probe = p.dir // "" for "**"
	default:
		probe = p.prefix[:max(strings.LastIndexByte(p.prefix, '/'), 0)]
	}
	if probe == "" {
		return norm, nil
	}
	k, err := kind(probe)
	if err != nil {
		return "", err
	}
	switch {
	case k == BeneathFile:
		return "", patternError(orig, ErrBeneathFile,
			"%s lies beneath a file of this repository (in HEAD, the index or the worktree), so nothing it names can exist; reserve the file itself", probe)
	case k == File && !p.literal && !p.subtree:
		return "", patternError(orig, ErrBeneathFile,
			"%s is a file of this repository (in HEAD, the index or the worktree), so nothing beneath it can exist; reserve %s itself", probe, probe)
	case p.literal && k != File:
		return norm + "/**", nil
	case p.subtree && k == File:
		return strings.TrimSuffix(norm, "/**"), nil
	}
	return norm, nil
}

// vet is the part of NormalizeIn that needs the automaton: it refuses a
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
	if ok, err := m.matchesSome(); err != nil {
		return patternError(orig, ErrTooComplex, "simplify it")
	} else if !ok {
		return patternError(orig, ErrMatchesNothing,
			"git paths are relative, '/'-separated, and have no empty, '.' or '..' segments")
	}
	return nil
}
