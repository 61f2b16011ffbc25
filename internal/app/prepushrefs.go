package app

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"strings"

	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/team/ledgersync"
	"github.com/git-queen/git-queen/internal/team/precommit"
)

// zeroID stands for "the remote has nothing there" in a ref update line.
const zeroID = "0000000000000000000000000000000000000000"

// pushUpdates is what the pre-push check judges: the lines git writes to
// the hook's stdin (refs), or, when the pre-commit framework ran the hook
// (it reads git's lines itself and hands its hooks none), the refs it
// names in the environment (PRE_COMMIT_FROM_REF, PRE_COMMIT_TO_REF,
// PRE_COMMIT_LOCAL_BRANCH, PRE_COMMIT_REMOTE_BRANCH, PRE_COMMIT_REMOTE_NAME).
// It returns the remote too: git's argument, else the framework's.
//
// Empty stdin outside the framework is git's own word that nothing is
// pushed (git runs the hook when every ref is up to date). Under the
// framework, no refs at all means the check has nothing to judge, and it
// refuses rather than let the push through.
func pushUpdates(getenv func(string) string, repo *gitrepo.Repo, remote string, refs []byte) ([]precommit.RefUpdate, string, error) {
	if len(bytes.TrimSpace(refs)) > 0 {
		updates, err := precommit.ParseRefUpdates(bytes.NewReader(refs))
		return updates, remote, err
	}
	if !underFramework(getenv) {
		return nil, remote, nil
	}
	remote = cmp.Or(remote, getenv("PRE_COMMIT_REMOTE_NAME"))
	line, err := frameworkRefLine(repo, getenv)
	if err != nil {
		return nil, remote, err
	}
	updates, err := precommit.ParseRefUpdates(strings.NewReader(line))
	if err != nil {
		return nil, remote, fmt.Errorf("the pre-commit framework's refs: %w", err)
	}
	if ref := getenv("PRE_COMMIT_REMOTE_BRANCH"); ref != "" && remote != "" && len(updates) == 1 {
		updates[0].RemoteSHA = remoteTip(repo, remote, ref, updates[0].RemoteSHA)
	}
	return updates, remote, nil
}

// remoteTip is the commit remote shows for ref now, in place of from, what
// the pre-commit framework says it has: for a remote commit this clone
// never fetched, the framework names the parent of the first commit the
// remote-tracking refs lack, which hides that the push replaces commits
// no check here can see (git's own line names the remote's commit). It
// asks the remote within queen.prePushTimeout (off: not at all), and keeps
// from when the remote shows no such ref or cannot be asked.
func remoteTip(repo *gitrepo.Repo, remote, ref, from string) string {
	limit, err := ledgersync.ConfiguredPrePushTimeout(repo)
	if err != nil || limit == 0 {
		return from
	}
	tip, found, err := ledgersync.ProbeRef(repo, remote, ref, limit)
	if err != nil || !found {
		return from
	}
	return tip.String()
}

// underFramework says whether the pre-commit framework runs the hook: it
// sets PRE_COMMIT=1 for every hook it runs (and the refs for pre-push).
func underFramework(getenv func(string) string) bool {
	return getenv("PRE_COMMIT") == "1" || getenv("PRE_COMMIT_TO_REF") != "" || getenv("PRE_COMMIT_LOCAL_BRANCH") != ""
}

// frameworkRefLine is the framework's refs as the line git would have
// written. PRE_COMMIT_FROM_REF is what the remote has (its ref, or the
// parent of the first commit it lacks); when the framework pushes a
// branch down to its root commit it gives no refs, only the branch, which
// is judged whole (the remote-tracking refs still say what the remote has).
func frameworkRefLine(repo *gitrepo.Repo, getenv func(string) string) (string, error) {
	from, to := getenv("PRE_COMMIT_FROM_REF"), getenv("PRE_COMMIT_TO_REF")
	local, remoteRef := getenv("PRE_COMMIT_LOCAL_BRANCH"), getenv("PRE_COMMIT_REMOTE_BRANCH")
	if to == "" && local != "" {
		to, from = local, zeroID
	}
	// git hands the framework object names; `pre-commit run --from-ref
	// origin/main --to-ref HEAD` hands on whatever it was given.
	for _, rev := range []*string{&from, &to} {
		if *rev == "" || *rev == zeroID {
			continue
		}
		id, err := repo.ResolveCommit(*rev)
		if err != nil {
			return "", fmt.Errorf("the pre-commit framework names %q as a commit of the push, which is not a commit here", *rev)
		}
		*rev = id
	}
	if to == "" {
		return "", errors.New("the pre-commit framework ran the pre-push check without saying what is pushed " +
			"(no refs on stdin, no PRE_COMMIT_TO_REF), so there is nothing to judge and the push is refused; " +
			"run it at the pre-push stage only (stages: [pre-push], and pre-commit install --hook-type pre-push), " +
			"or skip it once with SKIP=git-queen-pre-push")
	}
	return fmt.Sprintf("%s %s %s %s\n", oneField(cmp.Or(local, "HEAD")), to, oneField(cmp.Or(remoteRef, "refs/heads/unknown")), cmp.Or(from, zeroID)), nil
}

// oneField keeps a ref name one field of the line (a ref name has no
// whitespace; what else the environment holds is not trusted).
func oneField(s string) string {
	if f := strings.Fields(s); len(f) == 1 {
		return f[0]
	}
	return "invalid-ref"
}
