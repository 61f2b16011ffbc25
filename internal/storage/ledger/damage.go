package ledger

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"
	"sync"

	gitobject "github.com/git-queen/git-queen/internal/gitrepo/object"
)

// A ledger is input: anyone who can push to the team's remote can put any
// object under refs/queen/, and a gc can prune objects a ref still names.
// Every read of a ledger is bounded and checks what it reads against the
// one shape this version writes; what does not fit is a *DamageError,
// which the caller sets aside (a remote's commit) or repairs (the local
// ledger), never a reason to stop a command or a commit.

// Bounds on what the ledger reads.
const (
	// MaxChunkBytes is the largest chunk read. A clone closes a chunk at
	// ChunkSize (64 KiB), one record version past it at most (256 KiB);
	// but clones that appended to the same month's last chunk before they
	// synced leave the union of their appends there, so the bound leaves
	// room for dozens of them. A chunk of a million reservations (230 MB)
	// is refused from its object header, unread.
	MaxChunkBytes = 4 << 20
	maxTreeBytes  = 64 << 10
	// maxCommitBytes bounds a commit object (a header and a one-line message).
	maxCommitBytes = 64 << 10
	maxFormatBytes = 1 << 10
)

// DamageError is a ledger object that is missing, of another type than its
// place needs, of a shape this version does not write, or over a bound.
type DamageError struct {
	// Commit is the ledger commit being read, when known (or the object a
	// ref names in its place: Kind says what it is then).
	Commit gitobject.ID
	// Path is where in its tree ("" for the commit or the root tree).
	Path   string
	Object gitobject.ID
	// Kind is the type Object has when it is not the one its place needs
	// ("tag" for an annotated tag pushed as the ledger ref), so that a note
	// can say what it set aside.
	Kind   string
	Reason string
	// Missing is an object the repository does not have (a gc pruned it
	// while a ref still named it, or a fetch broke off).
	Missing bool
	// Ours says that a merge went over a bound by the bigger part of its
	// first side, the caller's own ledger: an honest clone writes no such
	// part, so it came from a merge that passed before, and the caller
	// rebuilds rather than set the other side aside.
	Ours bool
}

func (e *DamageError) Error() string {
	where := "the ledger"
	if !e.Commit.IsZero() {
		named := "commit"
		if e.Kind != "" && e.Object == e.Commit {
			named = e.Kind // the ref names no commit: a tag, a tree, a blob
		}
		where = "ledger " + named + " " + gitobject.Short(e.Commit)
	}
	if e.Path != "" {
		where += " at " + e.Path
	}
	obj := ""
	if !e.Object.IsZero() && e.Object != e.Commit {
		obj = " (object " + gitobject.Short(e.Object) + ")"
	}
	return fmt.Sprintf("%s%s: %s", where, obj, e.Reason)
}

// IsDamage reports whether err is a damaged ledger (see DamageError).
func IsDamage(err error) bool {
	_, ok := errors.AsType[*DamageError](err)
	return ok
}

// inCommit names the commit a damage was found in, if it does not say yet.
func inCommit(err error, commit gitobject.ID) error {
	if d, ok := errors.AsType[*DamageError](err); ok && d.Commit.IsZero() {
		d.Commit = commit
	}
	return err
}

// at names the tree path a damage was found at, if it does not say yet.
func at(err error, p string) error {
	if d, ok := errors.AsType[*DamageError](err); ok && d.Path == "" {
		d.Path = p
	}
	return err
}

// level is a depth of the ledger's tree, each with its one kind of entry:
//
//	root   FORMAT and one directory per log
//	log    one directory per month, "2026-11"
//	month  one directory per hundred chunks, "000"
//	hundred  the chunks, "00.jsonl"
type level int

const (
	rootLevel level = iota
	logLevel
	monthLevel
	hundredLevel
)

var (
	monthName   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9]{4}-(0[1-9]|1[0-2])$`) })
	hundredName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9]{3}$`) })
	chunkName   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9]{2}\.jsonl$`) })
)

// admit says why an entry cannot stand at this level of a ledger tree
// ("" when it can): its name and mode must be what git-queen writes there.
func (lv level) admit(e entry) string {
	var wantName *regexp.Regexp
	wantMode := gitobject.DirMode
	switch lv {
	case rootLevel:
		if e.Name == formatFile {
			wantMode = gitobject.RegularMode
			break
		}
		if _, ok := fileOf(e.Name); !ok {
			return fmt.Sprintf("%q is not a part of the ledger (only %s and the logs' directories are)", e.Name, formatFile)
		}
	case logLevel:
		wantName = monthName()
	case monthLevel:
		wantName = hundredName()
	default:
		wantName, wantMode = chunkName(), gitobject.RegularMode
	}
	if wantName != nil && !wantName.MatchString(e.Name) {
		return fmt.Sprintf("%q is not a name git-queen writes there", e.Name)
	}
	if e.Mode != wantMode {
		return fmt.Sprintf("%q has mode %o (%s), not %o", e.Name, uint32(e.Mode), gitobject.Describe(e.Mode), uint32(wantMode))
	}
	return ""
}

// shapeError is the damage of an entry that admit refused.
func shapeError(prefix string, e entry, reason string) error {
	return &DamageError{Path: path.Join(prefix, e.Name), Object: e.ID, Reason: reason}
}

// levelOf is the level of the tree at p ("" is the root).
func levelOf(p string) level {
	if p == "" {
		return rootLevel
	}
	return level(1 + strings.Count(p, "/"))
}
