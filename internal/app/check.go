package app

import (
	"fmt"
	"strings"
	"time"

	"github.com/git-queen/git-queen/internal/base/wording"
	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// CheckRequest names paths to check against the reservations.
type CheckRequest struct {
	Paths []string `json:"paths" jsonschema:"file paths relative to the top of the repository, at most 4096; each is free, or held exclusively by another droid (a conflict error)"`
}

// maxCheckPaths bounds the distinct paths one check judges, as it bounds a
// reserve's patterns: the answer names each path (of at most 4,096 bytes,
// tooLong), and a directory is judged whole in one path. 300,000 cost 14 s
// and megabytes of answer.
const maxCheckPaths = records.MaxActiveReservations

// CheckResult says of each path whether it is free, and who holds it.
type CheckResult struct {
	Droid string       `json:"droid"`
	Paths []PathStatus `json:"paths"`
	// Holds are the holds found, in order, for a person's listing.
	Holds []reservations.Hold `json:"-"`
}

// PathStatus is one path checked.
type PathStatus struct {
	Path string `json:"path"`
	// Given is the path as it was given (from the top) when a symlink
	// leads it to Path (lnk/a.go, with lnk -> src, for src/a.go); a path
	// is judged where it really is, as the edit guard judges it.
	Given  string                `json:"given,omitempty"`
	Free   bool                  `json:"free"`
	HeldBy []records.Reservation `json:"held_by"`
	// Directory is true for a directory or submodule, judged as reserve
	// judges DIR/**; Within then names, for each reservation of HeldBy,
	// a path it holds: the directory itself, or one in it.
	Directory bool     `json:"directory,omitempty"`
	Within    []string `json:"within,omitempty"`
}

// Check says whether paths are free. A path held exclusively by another
// droid is a ConflictError, whose result says who holds what.
var Check = UseCase[CheckRequest, *CheckResult]{Name: "check", run: check}

func check(e *Env, r CheckRequest) (*CheckResult, error) {
	if len(r.Paths) == 0 {
		return nil, usagef("check", "name at least one path to check (%s)", wording.Param("paths"))
	}
	if _, ok := distinctUpTo(r.Paths, maxCheckPaths); !ok {
		return nil, usagef("check", "check judges at most %d paths at once: give their directory, which is judged whole, or split the list", maxCheckPaths)
	}
	for _, p := range r.Paths {
		if strings.TrimSpace(p) == "" {
			// Read as the top of the repository, it reported every
			// reservation as holding a path the caller never named.
			return nil, usagef("check", "an empty path names no file: give a path in %s (. for the whole repository)", wording.Param("paths"))
		}
		if strings.ContainsRune(p, 0) { // only a tool's argument can carry one
			return nil, usagef("check", "path %q holds a NUL byte, which no file's name has", p)
		}
	}
	s, err := e.OpenStore()
	if err != nil {
		return nil, err
	}
	judged, err := e.judgedPaths(s, r.Paths) // each once, however it was spelled (a.go, ./a.go, lnk/a.go)
	if err != nil {
		return nil, err
	}
	files, dirs, err := splitDirs(s, judged)
	if err != nil {
		return nil, err
	}
	me := e.Identity()
	holds, err := (&reservations.Store{S: s}).CheckWithin(me, files, dirs)
	if err != nil {
		return nil, err
	}
	isDir := make(map[string]bool, len(dirs))
	for _, d := range dirs {
		isDir[d] = true
	}
	res := &CheckResult{Droid: me, Paths: make([]PathStatus, len(judged)), Holds: holds}
	for i, j := range judged {
		st := PathStatus{Path: j.path, Given: j.given, Free: true, HeldBy: []records.Reservation{}, Directory: isDir[j.path]}
		for _, h := range holds {
			if h.Path == j.path {
				st.Free = false
				st.HeldBy = append(st.HeldBy, h.Reservation)
				if st.Directory {
					st.Within = append(st.Within, h.Witness)
				}
			}
		}
		res.Paths[i] = st
	}
	if len(holds) > 0 {
		return res, conflict(res.describeHolds())
	}
	return res, nil
}

// splitDirs sorts the paths check judges into those it judges as
// paths and the directories and submodules (in HEAD, the index or the
// worktree), which it judges as reserve judges DIR/**: held when anything
// in them is, so that check and reserve agree.
func splitDirs(s *store.Store, judged []judgedPath) (files, dirs []string, err error) {
	paths := make([]string, len(judged))
	for i, j := range judged {
		paths[i] = j.path
	}
	if s.WS.Repo == nil {
		return paths, nil, nil
	}
	kinds, err := s.WS.Repo.PathKinds(paths)
	if err != nil {
		return nil, nil, err
	}
	for i, p := range paths {
		if kinds[i] == gitrepo.PathDir {
			dirs = append(dirs, p)
		} else {
			files = append(files, p)
		}
	}
	return files, dirs, nil
}

// Label is the path as a person reads it: Path, or "Given -> Path" when a
// symlink led there.
func (p PathStatus) Label() string {
	if p.Given == "" {
		return p.Path
	}
	return p.Given + " -> " + p.Path
}

// describeHolds says in words what the result says when a path is held
// by another droid: each path, who holds it, by which pattern, until when
// and why; the free ones; and what to do.
func (c *CheckResult) describeHolds() error {
	var held, free []string
	for _, p := range c.Paths {
		if p.Free {
			free = append(free, p.Label())
			continue
		}
		for _, r := range p.HeldBy {
			line := fmt.Sprintf("%s: %s holds it until %s (pattern %s", p.Label(), r.Droid,
				r.Expiry().UTC().Format(time.RFC3339), r.Pattern)
			if r.IssueID != "" {
				line += ", issue " + r.IssueID
			}
			if r.Reason != "" {
				line += ", reason: " + r.Reason
			}
			held = append(held, line+")")
		}
	}
	msg := "held exclusively by another droid:\n  " + strings.Join(held, "\n  ")
	if len(free) > 0 {
		msg += "\nfree: " + strings.Join(free, ", ")
	}
	return wording.Errorf("%s\nask the holder (%s), wait for the reservation to end, or work on other paths", msg, wording.Run("msg send"))
}
