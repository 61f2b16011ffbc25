package commands

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/internal/base/wording"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/team/precommit"
)

// runPrePush is the pre-push check of the remote git names (its URL is
// not needed), with the refs git gives on stdin.
func runPrePush(o call[app.PrePushRequest]) error {
	env := o.Env.guardEnv()
	var res *app.PrePushResult
	var err error
	if o.Req.Refs, err = readPushRefs(env); err == nil {
		res, err = app.PrePush(env.session(o.G), o.Req)
	}
	if unseen, ok := errors.AsType[*precommit.UnseenError](err); ok {
		return printUnseen(env, o.G, unseen, lfsAfterNoVerify(env, o.Req.Remote))
	}
	if err != nil {
		return &errCheckFailed{err: err, push: true, after: lfsAfterNoVerify(env, o.Req.Remote)}
	}
	if res.Ledger != nil && res.Ledger.Missed != "" {
		fmt.Fprintln(env.Stderr, "git-queen: pre-push: "+res.Ledger.Missed)
	}
	refused := len(res.Push.Refusals) > 0
	return printVerdict(env, o.G, map[string]any{"refused": refused, "result": res.Push, "ledger": res.Ledger}, refused, ExitFailure, func() error {
		if refused {
			printPushRefusal(env.Stderr, res.Push, lfsAfterNoVerify(env, o.Req.Remote))
		}
		return nil
	})
}

// printUnseen refuses a push over a remote commit this clone never
// fetched: not a check that could not run, but one that cannot see what
// the push would take off.
// lfs is lfsAfterNoVerify's words, for its way out with --no-verify.
func printUnseen(env *Env, g globals, unseen *precommit.UnseenError, lfs string) error {
	out := map[string]any{"refused": true, "result": nil, "ledger": nil, "unseen": unseen.Updates, "error": unseen.Error()}
	return printVerdict(env, g, out, true, ExitFailure, func() error {
		fmt.Fprintf(env.Stderr, "git-queen: push refused: %s\nways out: %s%s\n", unseen.Error(), unseen.WaysOut(), lfs)
		return nil
	})
}

// printPushRefusal says what refused a push, and the ways out; lfs is
// lfsAfterNoVerify's words, for the way out with --no-verify.
func printPushRefusal(w io.Writer, res *precommit.PushResult, lfs string) {
	fmt.Fprintf(w, "git-queen: push refused: %d change(s) to paths other droids reserved exclusively:\n", len(res.Refusals))
	var names []string
	rest := "take the change out of the commits you push, or push anyway with git push --no-verify" + lfs
	for _, r := range res.Refusals {
		h := r.Reservation
		names = append(names, h.Droid)
		changes := "changes"
		if r.Dropped && !strings.HasPrefix(rest, "keep") {
			rest = "keep the commits the remote has in what you push (git rebase onto them, then push without --force), " + rest
		}
		if r.Dropped {
			changes = "is taken off the remote by this push, which undoes its change to"
		}
		fmt.Fprintf(w, "  commit %s %q %s %s: reserved exclusively by %s (pattern %s%s, expires %s)\n",
			r.Commit[:min(12, len(r.Commit))], r.Subject, changes, shownPath(r.Path), h.Droid, h.Pattern, forIssue(h.IssueID), records.Relative(res.Now, h.Expiry()))
	}
	printWaysOut(w, names, rest, res.Me)
}

// printWaysOut ends a refused commit, merge or push: whom to ask (the
// holders), what else to do (rest), and, for a droid without an identity
// (me), why every reservation applied.
func printWaysOut(w io.Writer, holders []string, rest, me string) {
	fmt.Fprintf(w, "ways out: ask the holder (git queen msg send --to %s --subject ...), wait for the reservation to end, %s\n",
		wording.ShellWord(strings.Join(firstSeen(holders), ",")), rest)
	if me == "" {
		fmt.Fprintln(w, "you have no droid identity, so every droid's exclusive reservations apply to you; "+app.ErrNoIdentity.Text().In(commandLine))
	}
}

// firstSeen is list without its repeats, each where it first stood.
func firstSeen(list []string) []string {
	seen := map[string]bool{}
	return slices.DeleteFunc(list, func(s string) bool {
		was := seen[s]
		seen[s] = true
		return was
	})
}

// shownPath is a path as a message shows it: as it is, unless it holds a
// control character (a tab, a newline), which would break the message's
// lines; then quoted, as Go quotes strings.
func shownPath(p string) string {
	if strings.ContainsFunc(p, unicode.IsControl) {
		return strconv.Quote(p)
	}
	return p
}

// lfsAfterNoVerify is what the pre-push check's advice to push with git
// push --no-verify adds in a repository that keeps Git LFS objects: that
// flag skips LFS's pre-push too, whose upload to remote (the one pushed
// to) is then run by hand. "" elsewhere.
func lfsAfterNoVerify(env *Env, remote string) string {
	if !app.KeepsLFSObjects(env.Dir) {
		return ""
	}
	return " and then upload its Git LFS objects, which --no-verify skips too: git lfs push --all " + wording.ShellWord(cmp.Or(remote, "origin"))
}
