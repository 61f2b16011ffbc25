package ledgersync

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/gitrepo/object"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/ledger"
)

// SetAside is something a remote's ledger held that this clone did not
// take: a commit that is damaged or over a bound (nothing of it is read;
// the next push leaves it out of the remote's ledger), or record versions
// that break a rule every version obeys (they stay in the ledger, unread).
// The clone goes on from what it had; sync says what it set aside once per
// round, and doctor lists the latest.
type SetAside struct {
	Remote string `json:"remote"`
	Ref    string `json:"ref"`
	Commit string `json:"commit"`
	// Kind is what Commit is when the ref named no commit ("tag" for an
	// annotated tag pushed as the ledger ref, "tree", "blob"); "" for a
	// commit.
	Kind string `json:"kind,omitempty"`
	// Path is where in the commit's tree the damage is ("" for the commit
	// itself, and for records).
	Path   string `json:"path,omitempty"`
	Reason string `json:"reason"`
	// Rule and Records, for record versions: the rule they broke and how
	// many did, with one of them as an example (its id).
	Rule    string `json:"rule,omitempty"`
	Records int    `json:"records,omitempty"`
	Example string `json:"example,omitempty"`
	// OverBound marks a sound commit that only brought more than
	// queen.maxReceive: it was neither merged nor pushed over.
	OverBound bool `json:"over_bound,omitempty"`
	// PushTo is the remote as git push takes it, for an OverBound commit
	// (Remote is its tracking name: url-... for a remote given by URL).
	PushTo string `json:"push_to,omitempty"`
	// Symref is, when the remote's ref was a symbolic ref, the ref it
	// names, whose commit this is: no sync pushes over it (Aliased).
	Symref string    `json:"symref,omitempty"`
	At     time.Time `json:"at"`
}

// Fix says what a person can do about it.
func (a SetAside) Fix() string {
	if a.OverBound {
		return "nothing was merged, and the remote's ledger was left as it is: if it is your team's history, raise queen.maxReceive as it says; " +
			"if someone pushed it to flood the team, push this clone's ledger in its place: " + replaceCommand(cmp.Or(a.PushTo, a.Remote), a.Commit)
	}
	if a.Symref != "" {
		return "it is " + a.Symref + "'s commit: the remote's " + a.Ref + " is a symbolic ref to it, and no sync pushes over it; " +
			"on the server, run git symbolic-ref --delete " + a.Ref + ", then git queen sync"
	}
	if a.Rule != "" {
		return "nothing to do here: the versions stay in the ledger, unread by every clone; if they are yours, write them again with git queen" +
			likelyWriter[a.Rule]
	}
	return "nothing to do here: the next sync pushes this clone's ledger without that " + a.named() + "; " +
		"to keep it from coming back, find who pushed it (the remote's logs) and protect refs/queen/ (README: What the ledger trusts)"
}

// likelyWriter names, by rule, the git-queen that writes versions breaking
// it in a team of mixed builds.
var likelyWriter = map[string]string{
	records.RuleAuthorship: "; a clone whose git-queen was built before 2026-11-27 (git queen --version) writes them " +
		"when it changes a record a newer one wrote: upgrade it",
	records.RuleStatus: "; a status this git-queen does not know is likely a newer git-queen's: upgrade git-queen here",
}

// String is one line for a person.
func (a SetAside) String() string {
	if a.Rule != "" {
		return fmt.Sprintf("%d record version(s) from %s's ledger %s that break the %s rule: %s (%s)",
			a.Records, a.Remote, shortHash(a.Commit), a.Rule, a.Reason, a.Example)
	}
	where := ""
	if a.Path != "" {
		where = " at " + a.Path
	}
	return fmt.Sprintf("%s's %s (%s %s)%s: %s", a.Remote, a.Ref, a.named(), shortHash(a.Commit), where, a.Reason)
}

// sameAs says whether o notes what a does: the same remote, commit, path
// and rule.
func (a SetAside) sameAs(o SetAside) bool {
	return o.Remote == a.Remote && o.Commit == a.Commit && o.Path == a.Path && o.Rule == a.Rule
}

// named is what the note's object is: a commit, or the Kind the ref named.
func (a SetAside) named() string { return cmp.Or(a.Kind, "commit") }

func shortHash(h string) string { return h[:min(len(h), 12)] }

// maxSetAside is how many notes the state keeps.
const maxSetAside = 32

// noteSetAside notes in r what it set aside, and keeps the note in the
// state, the newest last; a note like one it holds (sameAs) replaces it.
func (r *round) noteSetAside(st *state, a SetAside) {
	r.setAside = append(r.setAside, a)
	st.SetAside = slices.DeleteFunc(st.SetAside, a.sameAs)
	st.SetAside = append(st.SetAside, a)
	st.changed = true
	if n := len(st.SetAside); n > maxSetAside {
		st.SetAside = slices.Clone(st.SetAside[n-maxSetAside:])
	}
}

// noteAlias marks the notes of the remote's ledger r set aside as the
// commit of the ref its symbolic ref names, when err (refuseAlias's) says
// so: their fix is on the server, not the next sync. As the outcomes
// (note), the notes are what doctor says: a failure to write them is no
// sync's.
func (s *Syncer) noteAlias(r *round, err error) {
	re, ok := errors.AsType[*RemoteError](err)
	if !ok || re.Cause != Aliased {
		return
	}
	_ = s.S.Update(func(*jsonl.Tx) error {
		st, err := s.loadState()
		if err != nil {
			return err
		}
		for i, a := range st.SetAside {
			if a.Remote == r.remote && a.Commit == r.fetched.String() {
				st.SetAside[i].Symref = re.Ref
			}
		}
		return st.save(s.dir())
	})
}

// setAsideWhole reports whether a note says that a round set remote's
// commit aside whole (damaged, not merged; a note of versions that broke
// a rule is of a commit that was merged).
func (st *state) setAsideWhole(remote, commit string) bool {
	return slices.ContainsFunc(st.SetAside, func(a SetAside) bool {
		return a.Remote == remote && a.Commit == commit && a.Rule == "" && !a.OverBound
	})
}

// damageNote is the note for a commit that Inspect refused.
func damageNote(remote string, commit object.ID, err error, now time.Time) SetAside {
	a := SetAside{Remote: remote, Ref: ledger.Ref, Commit: commit.String(), Reason: err.Error(), At: now}
	if d, ok := errors.AsType[*ledger.DamageError](err); ok {
		a.Path, a.Reason = d.Path, d.Reason
		if d.Object == commit {
			a.Kind = d.Kind
		}
		if !d.Commit.IsZero() && d.Commit != commit {
			a.Reason += " (in its parent " + shortHash(d.Commit.String()) + ")"
		}
	}
	return a
}

// recordNotes turns the rule breaks of a round into notes, one per rule.
func recordNotes(remote string, commit object.ID, broken map[string]*ruleCount, now time.Time) []SetAside {
	var out []SetAside
	for _, rule := range slices.Sorted(maps.Keys(broken)) {
		c := broken[rule]
		out = append(out, SetAside{Remote: remote, Ref: ledger.Ref, Commit: commit.String(), Rule: rule,
			Records: c.n, Reason: c.msg, Example: c.example, At: now})
	}
	return out
}

// ruleCount counts the versions that broke one rule, with the first one's
// words and id.
type ruleCount struct {
	n            int
	msg, example string
}
