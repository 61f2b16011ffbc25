package ledgersync

import (
	"cmp"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/git-queen/git-queen/internal/base/wording"
	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/gitrepo/object"
	"github.com/git-queen/git-queen/internal/storage/ledger"
)

// DefaultMaxReceive bounds what one sync takes from a remote: the bytes of
// chunks its ledger holds that this clone's does not. A team's history of a
// million messages (about 490 MiB, at some 520 bytes a version) fits, so a
// clone joining such a team syncs in one go; a push of more is not merged,
// and the sync stops and says so (ReceiveBoundError): a team that really
// has more raises queen.maxReceive.
const DefaultMaxReceive = 1 << 30

// maxReceive is queen.maxReceive, else DefaultMaxReceive: a size as git
// config writes them ("512MiB", "1GiB", a number of bytes), with k, m or g
// (or KiB, MiB, GiB) for 1024, 1024², 1024³.
func maxReceive(repo *gitrepo.Repo) int64 {
	if repo == nil {
		return DefaultMaxReceive
	}
	v, _ := repo.LocalConfig("queen.maxreceive") // "" when unset: not a size
	v = strings.ToLower(strings.TrimSpace(v))
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"gib", 1 << 30}, {"mib", 1 << 20}, {"kib", 1 << 10}, {"g", 1 << 30}, {"m", 1 << 20}, {"k", 1 << 10}} {
		if rest, ok := strings.CutSuffix(v, u.suffix); ok {
			v, mult = strings.TrimSpace(rest), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return DefaultMaxReceive
	}
	return n * mult
}

// inspectWithin is the error of l.InspectWithin(from, to, limit), or the
// damage of a commit that brings more than limit (overBound).
func inspectWithin(l *ledger.Ledger, from, to object.ID, limit int64) error {
	n, err := l.InspectWithin(from, to, limit)
	if err == nil && n > limit {
		err = overBound(to, n, limit)
	}
	return err
}

// overBound is the damage of a commit that holds more new chunks than one
// sync takes (see IsOverBound).
func overBound(commit object.ID, newBytes, limit int64) error {
	return &boundDamage{&ledger.DamageError{Commit: commit, Object: commit, Reason: fmt.Sprintf(
		"it brings at least %s of new chunks, more than one sync takes (queen.maxReceive, %s); "+
			"if that is your team's history, raise it: git config queen.maxReceive %dMiB",
		size(newBytes), size(limit), (newBytes>>20)+64)}}
}

// size says n bytes in MiB, under 1 MiB in KiB, under 1 KiB in bytes,
// rounded down (what a commit brings is at least that): a bound of 512 KiB
// read "0 MiB".
func size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// boundDamage is the damage overBound says: a commit sound but for what
// it brings, which a sync neither merges nor pushes over, and stops on.
type boundDamage struct{ *ledger.DamageError }

func (e *boundDamage) Unwrap() error { return e.DamageError }

// IsOverBound says whether err is a remote's commit that only brings more
// than one sync takes (queen.maxReceive): every sync stops on it, rather
// than set it aside and push this clone's ledger over it as it does a
// damaged one, so doctor must not say that the next sync replaces it.
func IsOverBound(err error) bool {
	_, ok := errors.AsType[*boundDamage](err)
	return ok
}

// ReceiveBoundError stops a sync whose remote ledger brings more than
// queen.maxReceive: well formed, perhaps the team's whole history, so it is
// not pushed over either. Commands and commits go on from what this clone
// has. Every clone's sync stops on it alike, so the error says how a
// person replaces one pushed to flood the team, as well as how to take it.
type ReceiveBoundError struct {
	Remote string
	// PushTo is the remote as git push takes it (a name or a URL).
	PushTo string
	Note   SetAside
}

func (e *ReceiveBoundError) Error() string {
	remote := cmp.Or(e.PushTo, e.Remote)
	return fmt.Sprintf("did not take %s's ledger (commit %s): %s; if someone pushed it to flood the team, "+
		"push this clone's ledger in its place (the other clones' syncs push back what it lacks of theirs): %s",
		remote, shortHash(e.Note.Commit), e.Note.Reason, replaceCommand(remote, e.Note.Commit))
}

// replaceCommand is the git command that pushes this clone's ledger to
// remote in place of commit, and only of it (a lease).
func replaceCommand(remote, commit string) string {
	return fmt.Sprintf("git push --force-with-lease=%s:%s %s %s:%s",
		ledger.Ref, commit, wording.ShellWord(remote), ledger.Ref, ledger.Ref)
}
