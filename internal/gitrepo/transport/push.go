package transport

import (
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-queen/git-queen/internal/gitrepo"
)

// Outcome is what a push with a lease came to, when the remote answered.
type Outcome int

const (
	// Pushed: the remote's ref now holds the commit.
	Pushed Outcome = iota
	// LostRace: the remote's ref moved since it was fetched.
	LostRace
	// TryAgain: the remote failed to take the push for a passing reason
	// of its own (a race for its ref lock or its quarantine), and its ref
	// did not move: nothing was published.
	TryAgain
	// ObjectsMissing: git here could not pack what the push needs,
	// because this repository lacks an object the commit names (a git gc
	// --prune=now pruned it). Nothing was published.
	ObjectsMissing
	// Refused: the remote was reached and refused the ref (a hook,
	// receive.hideRefs, an access rule); trying again will not help.
	Refused
)

// Refusal is why a remote refused a push, as far as git and the server
// said.
type Refusal int

// The refusals Push tells apart.
const (
	RefusedOther   Refusal = iota // see Reason
	HiddenRef                     // receive.hideRefs or transfer.hideRefs
	AccessRule                    // an access rule (gitolite's "DENIED by")
	PreReceiveHook                // the pre-receive hook declined
	UpdateHook                    // the update hook declined
	// NameTaken: the server holds a ref below the pushed ref's name
	// (refs/queen/ledger/x), which keeps git there from creating the ref
	// itself; Reason names that ref.
	NameTaken
)

// PushResult is a push's outcome with what the remote said.
type PushResult struct {
	Outcome Outcome
	// Said is, for TryAgain and ObjectsMissing, the first lines of what
	// git said; for Refused, the server's own words ("remote:" lines),
	// else git's.
	Said string
	// Refusal and Reason (git's words after "[remote rejected]") say why
	// the remote refused.
	Refusal Refusal
	Reason  string
}

// Push sets ref on remote to commit, within limit, only if the remote's
// ref still holds expected (zero: only if it has none) — the
// compare-and-swap of --force-with-lease. Pre-push hooks are not run. The
// error is an *Error when the remote could not be reached or did not
// answer in time.
func Push(dir, remote string, commit plumbing.Hash, ref string, expected plumbing.Hash, limit time.Duration) (PushResult, error) {
	lease := ref + ":"
	if !expected.IsZero() {
		lease += expected.String()
	}
	stdout, stderr, err := run(dir, limit, "push", "--porcelain", "--no-verify", "--force-with-lease="+lease,
		"--", remote, commit.String()+":"+ref)
	if err == nil {
		return PushResult{Outcome: Pushed}, nil
	}
	if gitrepo.IsTimeout(err) {
		return PushResult{}, failure(stderr, err)
	}
	if lacksObjects(stderr) {
		return PushResult{Outcome: ObjectsMissing, Said: firstLines(stderr, nil)}, nil
	}
	for line := range strings.Lines(stdout) {
		if !strings.HasPrefix(line, "!") {
			continue
		}
		if strings.Contains(line, "stale info") || strings.Contains(line, "fetch first") || strings.Contains(line, "non-fast-forward") {
			return PushResult{Outcome: LostRace}, nil
		}
		if below := refBelow(stderr, ref); below != "" {
			return PushResult{Outcome: Refused, Refusal: NameTaken, Reason: below, Said: serverSaid(stderr)}, nil
		}
		// The server checked the old value under its ref lock and found
		// another push had won since it advertised the ref.
		if strings.Contains(line, "remote rejected") && strings.Contains(stderr, "cannot lock ref") &&
			(strings.Contains(stderr, "but expected") || strings.Contains(stderr, "reference already exists")) {
			return PushResult{Outcome: LostRace}, nil
		}
		// A receive-pack that lost a race with another to lock the ref, or
		// to move the same objects out of its quarantine (seen under 8
		// concurrent pushes to git daemon): nothing was published, and
		// trying again is safe.
		if strings.Contains(line, "remote rejected") && (strings.Contains(line, "unable to migrate objects") ||
			strings.Contains(line, "failed to lock") || strings.Contains(stderr, "cannot lock ref")) {
			return PushResult{Outcome: TryAgain, Said: firstLines(line[1:]+"\n"+stderr, nil)}, nil
		}
		reason := strings.TrimSpace(line[strings.LastIndexByte(line, '\t')+1:])
		if r, ok := strings.CutPrefix(reason, "[remote rejected]"); ok {
			reason = strings.Trim(strings.TrimSpace(r), "()")
			return PushResult{Outcome: Refused, Reason: reason, Refusal: refusal(reason, stderr), Said: serverSaid(stderr)}, nil
		}
		msg := reason
		if stderr != "" {
			msg += "; " + firstLines(stderr, nil)
		}
		return PushResult{}, &Error{Kind: Unreachable, Msg: msg}
	}
	return PushResult{}, failure(stderr, err)
}

// refBelow is the ref below ref's name that git's stderr says keeps the
// server from creating ref ("cannot lock ref 'R': 'R/x' exists; cannot
// create 'R'"), or "".
func refBelow(stderr, ref string) string {
	_, rest, ok := strings.Cut(stderr, "cannot lock ref '"+ref+"': '"+ref+"/")
	if !ok {
		return ""
	}
	name, rest, ok := strings.Cut(rest, "'")
	if !ok || !strings.HasPrefix(rest, " exists") {
		return ""
	}
	return ref + "/" + name
}

// missingObjectSays are how git's receiving side begins a line about an
// object the push did not send.
var missingObjectSays = []string{"fatal: bad tree object", "fatal: bad blob object", "fatal: bad object",
	"fatal: unable to read", "error: unable to read", "fatal: missing blob object", "fatal: missing tree object"}

// lacksObjects reports whether git's stderr from a push says this
// repository (not the server: its lines begin "remote:") could not read an
// object the pushed commit needs.
func lacksObjects(stderr string) bool {
	for line := range strings.Lines(stderr) {
		if slices.ContainsFunc(missingObjectSays, func(said string) bool { return strings.HasPrefix(strings.TrimSpace(line), said) }) {
			return true
		}
	}
	return false
}

// refusal tells why a remote rejected a push, from the reason git prints
// after "[remote rejected]" and the server's own words on stderr.
func refusal(reason, stderr string) Refusal {
	switch {
	case strings.Contains(reason, "hidden ref"):
		return HiddenRef
	case strings.Contains(stderr, "DENIED by"):
		return AccessRule
	case strings.Contains(reason, "pre-receive hook declined"):
		return PreReceiveHook
	case strings.Contains(reason, "hook declined"):
		return UpdateHook
	}
	return RefusedOther
}

// serverSaid is what the server wrote while refusing a push (its
// "remote: " lines), else git's own lines but the "failed to push" one
// that every refused push ends with.
func serverSaid(stderr string) string {
	var remote, other []string
	for line := range strings.Lines(stderr) {
		line = strings.TrimSpace(line)
		if said, ok := strings.CutPrefix(line, "remote:"); ok {
			if said = strings.TrimSpace(said); said != "" {
				remote = append(remote, said)
			}
		} else if line != "" && !strings.HasPrefix(line, "error: failed to push some refs") {
			other = append(other, line)
		}
	}
	if len(remote) == 0 {
		remote = other
	}
	return strings.Join(remote[:min(len(remote), 3)], "; ")
}
