package ledger

import (
	"bytes"
	"errors"
	"fmt"
	"iter"
	"slices"

	"github.com/git-queen/git-queen/internal/gitrepo"
	gitobject "github.com/git-queen/git-queen/internal/gitrepo/object"
)

// The ledger reads and writes its objects through the git layer: gitrepo's
// Objects (in process, loose objects and packs searched through their
// mapped indexes, `git cat-file` where that declines; loose objects
// written) and the object package's tree and commit codec. It does not use
// go-git's repository storage: that storage decodes a pack's whole index
// to find one object (a large repository's history, on every sync). Here
// what the git layer says of an object becomes a *DamageError that names
// it.

// Signature is who wrote a ledger commit, and when.
type Signature = gitobject.Signature

// tree is a ledger tree being read or edited.
type tree = gitobject.Tree

// entry is one entry of a tree.
type entry = gitobject.Entry

// read returns the content of the object h, which must be of type want and
// at most max bytes. What the repository lacks, what is of another type or
// larger, and what does not inflate is a *DamageError.
func (l *Ledger) read(h gitobject.ID, want string, max int64) ([]byte, error) {
	kind, data, err := l.objects.ReadWithGit(h, max)
	var tooLarge *gitrepo.TooLargeError
	if errors.As(err, &tooLarge) && tooLarge.Kind != want {
		kind, err = tooLarge.Kind, nil // a large tag where a commit belongs: said so (its Kind)
	}
	switch {
	case errors.As(err, &tooLarge):
		return nil, &DamageError{Object: h, Reason: fmt.Sprintf("a %s of %d bytes, more than a ledger %s may have (%d)",
			tooLarge.Kind, tooLarge.Size, want, max)}
	case err != nil:
		return nil, objectDamage(h, want, err)
	case kind != want:
		return nil, &DamageError{Object: h, Kind: kind, Reason: fmt.Sprintf("a %s where a %s belongs", kind, want)}
	}
	return data, nil
}

// objectDamage is the error of an object the git layer could not read: a
// *DamageError when it is missing or cannot be read, unless git itself
// failed (a problem of this machine, not of the ledger).
func objectDamage(h gitobject.ID, what string, err error) error {
	var gitFailed *gitrepo.GitFailure
	switch {
	case errors.As(err, &gitFailed):
		return fmt.Errorf("read ledger %s %s: %w", what, gitobject.Short(h), err)
	case errors.Is(err, gitrepo.ErrObjectMissing):
		return &DamageError{Object: h, Missing: true, Reason: fmt.Sprintf("the %s %s is missing from the repository", what, gitobject.Short(h))}
	}
	return &DamageError{Object: h, Reason: fmt.Sprintf("the %s %s cannot be read: %v", what, gitobject.Short(h), err)}
}

func (l *Ledger) write(t gitobject.Type, content []byte) (gitobject.ID, error) {
	h, err := l.objects.Write(t, content)
	if err != nil {
		return gitobject.ZeroID, fmt.Errorf("write ledger object: %w", err)
	}
	return h, nil
}

func (l *Ledger) commit(h gitobject.ID) (gitobject.Commit, error) {
	data, err := l.read(h, "commit", maxCommitBytes)
	if err != nil {
		return gitobject.Commit{}, inCommit(err, h)
	}
	c, err := gitobject.DecodeCommit(data)
	if err != nil {
		return c, &DamageError{Commit: h, Object: h, Reason: err.Error()}
	}
	return c, nil
}

// CommitTree writes a commit of tree with the given parents (Record and
// Merge, and a caller that merged the trees itself with MergeTrees).
func (l *Ledger) CommitTree(tree gitobject.ID, parents []gitobject.ID, sig Signature, msg string) (gitobject.ID, error) {
	c := gitobject.Commit{Tree: tree, Parents: parents, Committer: sig, Message: msg}
	return l.write(gitobject.CommitType, c.Encode())
}

// chunk reads a chunk whole, within MaxChunkBytes.
func (l *Ledger) chunk(h gitobject.ID) ([]byte, error) {
	return l.read(h, "blob", MaxChunkBytes)
}

func (l *Ledger) writeBlob(data []byte) (gitobject.ID, error) {
	return l.write(gitobject.BlobType, data)
}

// readTree reads a tree; the zero hash is the empty tree. Its entries must
// be well formed and in git's order, each name once.
func (l *Ledger) readTree(h gitobject.ID) (*tree, error) {
	if h.IsZero() {
		return &tree{}, nil
	}
	data, err := l.read(h, "tree", maxTreeBytes)
	if err != nil {
		return nil, err
	}
	t, err := gitobject.DecodeTree(data)
	if err != nil {
		return nil, &DamageError{Object: h, Reason: err.Error()}
	}
	return t, nil
}

func (l *Ledger) writeTree(t *tree) (gitobject.ID, error) {
	if len(t.Entries) == 0 {
		return gitobject.ZeroID, nil
	}
	return l.write(gitobject.TreeType, t.Encode())
}

// splitLines splits a chunk into its lines, without their newlines.
func splitLines(data []byte) [][]byte { return slices.Collect(LinesOf(data)) }

// LinesOf yields the lines of a chunk's bytes as a Chunk's Lines holds
// them: without their newlines, blank lines skipped. A reader of
// EachChangeRead's Data reads it with this, and so sees what a reader of
// Lines would; it may be read more than once.
func LinesOf(data []byte) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		for line := range bytes.Lines(data) {
			if line = bytes.TrimSuffix(line, []byte{'\n'}); len(line) > 0 && !yield(line) {
				return
			}
		}
	}
}

// hasLine says whether data holds a line that is not blank.
func hasLine(data []byte) bool { return len(bytes.Trim(data, "\n")) > 0 }
