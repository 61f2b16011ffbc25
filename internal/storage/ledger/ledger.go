// Package ledger keeps the history of a repository's live store as commits
// on a ref (refs/queen/ledger), so that git itself can carry the store
// between clones: a remote stores the ref, `git fetch` and `git push` move
// it, and two ledgers that diverged merge without conflicts, because every
// line is a record version and their union is exact.
//
// A commit's tree holds the logs as JSONL chunks:
//
//	FORMAT                               "git-queen ledger 1"
//	messages/2026-11/000/00.jsonl        the first 64 KiB of November's message versions
//	messages/2026-11/000/01.jsonl        the next chunk, and so on
//	reservations/2026-11/000/00.jsonl
//	assignments/...
//
// A version goes into the month it was written (its updated_at or the
// like), and into the last chunk of that month until the chunk is full. So
// recording new versions rewrites one chunk, two small trees per store and
// the root: the cost follows what is new, not the size of the history.
//
// Objects are written and read in process through the git layer
// (gitrepo.Objects, the gitrepo/object codec; see objects.go); the ref is
// moved with git's own lock-file protocol (gitrepo/refs), which go-git's
// reference storage does not follow. Fetching and pushing are not this
// package's business: it
// knows nothing of remotes.
package ledger

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"slices"
	"strings"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/gitrepo"
	gitobject "github.com/git-queen/git-queen/internal/gitrepo/object"
	"github.com/git-queen/git-queen/internal/gitrepo/refs"
)

// Ref is the local ledger.
const Ref = "refs/queen/ledger"

// TrackingRef is where a remote's ledger is fetched to:
// refs/queen/remotes/NAME/ledger, where NAME is TrackingName(remote), one
// ref component whatever the remote is (a name, a URL, a path). It is the
// one place that builds the ref, so readers need look only at
// refs/queen/remotes/<one component>/ledger.
func TrackingRef(remote string) string {
	return "refs/queen/remotes/" + TrackingName(remote) + "/ledger"
}

// FetchRefspec fetches a remote's ledger to its tracking ref. It is a
// pattern so that fetching from a remote that has no ledger yet fetches
// nothing instead of failing (a plain `git fetch` with this refspec
// configured must keep working), and it matches only refs/queen/ledger*,
// so that refs another clone pushed under refs/queen/ (such as
// refs/queen/remotes/x/ledger) never land among this clone's tracking refs.
func FetchRefspec(remote string) string {
	return "+" + Ref + "*:" + TrackingRef(remote) + "*"
}

// SyncRefspec is sync's own fetch of a remote's ledger: the ledger to its
// tracking ref, and no ref that FetchRefspec's pattern matches beside it
// (refs/queen/ledger-x, pushed by anyone, of any size). A fetch with it
// fails where the remote has no ledger.
func SyncRefspec(remote string) string {
	return "+" + Ref + ":" + TrackingRef(remote)
}

// TrackingName is the single ref component that stands for remote in
// refs/queen/remotes/: the remote itself when it is a plain name (letters,
// digits, '.', '_', '-'; as "origin" or "team-b"), else "url-" and 16
// hex digits of its SHA-256 (a URL, a path, a name with '/', anything a
// ref cannot hold or that could be read as another remote's). The same
// remote always gets the same name, and a name already returned maps to
// itself.
func TrackingName(remote string) string {
	if plainRemoteName(remote) {
		return remote
	}
	sum := sha256.Sum256([]byte(remote))
	return hashedPrefix + hex.EncodeToString(sum[:8])
}

// hashedPrefix starts the tracking names TrackingName derives by hashing.
const hashedPrefix = "url-"

// plainRemoteName says whether a remote can stand as its own tracking
// name: a short run of [A-Za-z0-9._-] that git accepts as a ref component,
// starting with a letter or digit, and not in the form of a hashed name
// unless it is one.
func plainRemoteName(s string) bool {
	if s == "" || len(s) > 64 || strings.Contains(s, "..") || strings.HasSuffix(s, ".") || strings.HasSuffix(s, ".lock") {
		return false
	}
	const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	if strings.IndexByte(alnum, s[0]) < 0 || strings.Trim(s, alnum+"._-") != "" {
		return false
	}
	if rest, ok := strings.CutPrefix(s, hashedPrefix); ok {
		_, err := hex.DecodeString(rest)
		return len(rest) == 16 && err == nil && rest == strings.ToLower(rest)
	}
	return true
}

// formatFile names the ledger format in every commit's tree.
const formatFile = "FORMAT"

// formatLine is this version's format.
const formatLine = "git-queen ledger 1\n"

// Logs are the store logs the ledger holds, each in the directory
// LedgerDir of the tree.
var Logs = records.Kinds

// DirOf is the directory that holds a log in the ledger's tree
// ("messages" for queen_messages.jsonl).
func DirOf(file string) (string, bool) {
	k, ok := records.KindOf(file)
	return k.LedgerDir, ok
}

func fileOf(dir string) (string, bool) {
	i := slices.IndexFunc(Logs, func(k records.Kind) bool { return k.LedgerDir == dir })
	if i < 0 {
		return "", false
	}
	return Logs[i].File, true
}

// Lines are lines of the logs, by log file name (queen_messages.jsonl...),
// each without its newline.
type Lines map[string][][]byte

// Count is the number of lines in all logs.
func (ls Lines) Count() int {
	n := 0
	for _, lines := range ls {
		n += len(lines)
	}
	return n
}

// ErrUnsupported is returned for repositories whose objects or refs the
// ledger cannot write in-process: a SHA-256 repository is a
// *gitobject.FormatError, which wraps it.
var ErrUnsupported = gitobject.ErrUnsupportedFormat

// Ledger is the object store and refs of one repository, as the ledger
// uses them.
type Ledger struct {
	objects *gitrepo.Objects
	refs    *refs.Store
}

// Open opens the ledger of the repository whose common git directory is
// commonDir. It refuses SHA-256 repositories with a *gitobject.FormatError:
// the ledger's objects are hashed by go-git, whose v5 writes SHA-1 ids.
func Open(commonDir string) (*Ledger, error) {
	if err := gitrepo.CheckObjectFormat(commonDir); err != nil {
		return nil, err
	}
	return &Ledger{objects: gitrepo.OpenObjects(commonDir), refs: refs.Open(commonDir)}, nil
}

// Close releases the mapped packs and the git process a read may have
// started.
func (l *Ledger) Close() error { return l.objects.Close() }

// Refresh is for callers that just had git write objects (a fetch): the
// ledger then finds them whether git unpacked them or kept a pack.
func (l *Ledger) Refresh() { l.objects.Refresh() }

// TreeOf returns the tree of a commit (the zero hash for the zero commit).
func (l *Ledger) TreeOf(commit gitobject.ID) (gitobject.ID, error) {
	if commit.IsZero() {
		return gitobject.ZeroID, nil
	}
	c, err := l.commit(commit)
	if err != nil {
		return gitobject.ZeroID, err
	}
	return c.Tree, nil
}

// Parents returns a commit's parents.
func (l *Ledger) Parents(commit gitobject.ID) ([]gitobject.ID, error) {
	c, err := l.commit(commit)
	return c.Parents, err
}

// Under returns what a walk for a sound ancestor of a refused ledger
// commit looks at next, and the size its object header gives: the
// commit's parents, or, when the ref named an annotated tag (git tag -a
// of the ledger, pushed as the ledger ref by hand), the object the tag
// names. The tag itself is refused as damage ("a tag where a commit
// belongs"); following it keeps the commit it names, which a push over
// the tag would take off the remote. A commit whose header is refused (18
// parents, a parent line that is no id) gives the parents read before the
// refusal, and a commit or tag too large to read here what git reads
// under it: git checked that the remote has it, and not following it
// pushed over the honest commit under one hostile commit (or tag).
func (l *Ledger) Under(commit gitobject.ID) ([]gitobject.ID, int64, error) {
	kind, size, err := l.objects.HeaderWithGit(commit)
	if err == nil && (kind == "commit" || kind == "tag") && size > maxCommitBytes {
		parents, err := l.objects.UnderWithGit(commit, kind) // refused unread (a message of megabytes): git reads it
		return parents, size, err
	}
	if err != nil || kind != "tag" {
		parents, err := l.Parents(commit)
		if d, ok := errors.AsType[*DamageError](err); ok && !d.Missing && len(parents) > 0 {
			return parents, size, nil
		}
		return parents, size, err
	}
	data, err := l.read(commit, "tag", maxCommitBytes)
	if err != nil {
		return nil, size, err
	}
	target, err := gitobject.TagTarget(data)
	if err != nil {
		return nil, size, &DamageError{Commit: commit, Object: commit, Reason: err.Error()}
	}
	return []gitobject.ID{target}, size, nil
}

// Independent returns those of commits that are under none of the others.
func (l *Ledger) Independent(commits []gitobject.ID) ([]gitobject.ID, error) {
	return l.objects.Independent(commits)
}

// Committer returns who wrote a commit, and when by their clock, with its
// parents.
func (l *Ledger) Committer(commit gitobject.ID) (Signature, []gitobject.ID, error) {
	c, err := l.commit(commit)
	return c.Committer, c.Parents, err
}

// Sound reports whether a ledger commit and its root tree can be read: a
// quick test for a ref a gc left naming pruned objects, before git itself
// is asked to use the ref (a fetch negotiates with every ref it has).
func (l *Ledger) Sound(commit gitobject.ID) error {
	root, err := l.TreeOf(commit)
	if err != nil {
		return err
	}
	_, err = l.readTree(root)
	return inCommit(err, commit)
}
