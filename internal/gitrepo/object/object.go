// Package object is git's object formats as git-queen reads and writes
// them in process: object ids and the repository's object format, the tree
// and commit codec, and loose objects (hashed and compressed with go-git's
// plumbing, as git does). It is the one tree parser of the codebase: the
// staged diff of the pre-commit hook walks trees with NextEntry, and the
// ledger decodes, edits and encodes them with Tree.
//
// It links go-git's plumbing and plumbing/format/objfile, not
// plumbing/object: that package's tree and commit types would spare the
// two small encoders here, but it pulls in 106 more packages (OpenPGP,
// diff, merkletrie) whose initialisation costs every git-queen process,
// the pre-commit hook included, about 0.9 ms more (GODEBUG=inittrace=1),
// and nine more modules in go.mod.
package object

import (
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// ID is an object id. It is go-git's, which is SHA-1 (see CheckFormat).
type ID = plumbing.Hash

// ZeroID is the id of no object: a ref that does not exist, a ledger with
// no commit yet.
var ZeroID = plumbing.ZeroHash

// Type is an object's type (go-git's).
type Type = plumbing.ObjectType

// The object types the ledger writes.
const (
	BlobType   = plumbing.BlobObject
	TreeType   = plumbing.TreeObject
	CommitType = plumbing.CommitObject
)

// Size is the length of an object id in bytes: SHA-1's.
const Size = 20

// Short is an id as messages show it: its first 12 hex digits, or "none"
// for the zero id (a ref that does not exist).
func Short(id ID) string {
	if id.IsZero() {
		return "none"
	}
	return id.String()[:12]
}

// ParseHex reads a full lower-case hex object id; ok is false for anything
// else (upper case, short, a SHA-256 id).
func ParseHex(s string) (id ID, ok bool) {
	if len(s) != 2*Size || strings.Trim(s, "0123456789abcdef") != "" {
		return id, false
	}
	return plumbing.NewHash(s), true
}

// Hash is the id git gives content of type t.
func Hash(t Type, content []byte) ID { return plumbing.ComputeHash(t, content) }

// ErrUnsupportedFormat is a repository whose object format git-queen does
// not read and write in process; errors.Is finds it in a *FormatError.
var ErrUnsupportedFormat = errors.New("unsupported repository")

// FormatError is a repository of another object format than SHA-1.
//
// One policy for SHA-256: go-git v5 hashes SHA-1 only, and every id the
// ledger keeps and hands on (commits, trees, chunks, refs) is one, so
// git-queen's in-process object code refuses other formats. The ledger
// answers a SHA-256 repository with this error (sync says it, the stores,
// hooks and merge driver keep working on one machine); the staged diff of
// the hook meets the same error and asks git instead, which reads any
// format.
type FormatError struct {
	Format string // "sha256"
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("%s: the ledger needs a SHA-1 repository, and this one uses %s objects (git-queen hashes objects with go-git v5, SHA-1 only for now)",
		ErrUnsupportedFormat, e.Format)
}

func (e *FormatError) Unwrap() error { return ErrUnsupportedFormat }

// CheckFormat says whether a repository whose extensions.objectFormat is
// format ("" when unset) has objects this package reads and writes: nil
// for SHA-1, else a *FormatError.
func CheckFormat(format string) error {
	format = strings.ToLower(strings.TrimSpace(format))
	if format == "" || format == "sha1" {
		return nil
	}
	return &FormatError{Format: format}
}
