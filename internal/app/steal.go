package app

import (
	"errors"
	"time"

	"github.com/git-queen/git-queen/internal/base/wording"
	"github.com/git-queen/git-queen/internal/domain/roster"
	"github.com/git-queen/git-queen/internal/storage/store"
	"github.com/git-queen/git-queen/internal/team/ledgersync"
)

// Recovery from a dead holder: reserve --steal and claim --steal take
// what a droid holds once it has been silent for longer than the team's
// threshold (SilentAfter), judged inside the write's lock against the
// roster as the fetch before it left it. The domain packages write the
// stolen versions and message the holder; this file gives them the check
// and turns its refusal into a conflict (exit 5).

// silentCheck is the steal check of the store s, for a what
// ("reservation", "claim") of command. It refuses a steal that would not
// go through the configured remote (offline): it would judge the holder by
// the sightings this clone has (not those the remote holds), and publish
// later without the compare-and-swap that lets a holder who came back
// keep what it holds. It refuses one in a plain directory store, where no
// command notes a sighting.
func silentCheck(command, what string, s *store.Store, offline bool) (func(string, time.Time) error, error) {
	if !s.WS.Live {
		// Commands note sightings in the live store only: here a droid
		// that reads its inbox every minute looks silent an hour after
		// its last write.
		return nil, usagef(command, "%s judges a holder's silence by its sightings, and a plain directory store (--beads-dir or BEADS_DIR) notes no sightings; "+
			"take over with %s, which tells the holder", wording.Param("steal"), wording.Param("force"))
	}
	if offline && ledgersync.ConfiguredRemote(s) != "" {
		return nil, usagef(command, "%[1]s judges the holder's silence by what the remote knows and publishes through it; it cannot be %[2]s. "+
			"Wait for the remote, or take over with %[3]s %[2]s, which tells the holder", wording.Param("steal"), wording.Param("offline"), wording.Param("force"))
	}
	return (&roster.Store{S: s}).TeamSilentCheck(what)
}

// stealRefused turns a steal refused because the holder was seen lately,
// or may have been (its clock is slow), into a ConflictError (exit 5, as
// any refusal by a holder); other errors pass as they are.
func stealRefused(err error) error {
	if seen, ok := errors.AsType[*roster.NotSilentError](err); ok {
		return conflict(seen)
	}
	if slow, ok := errors.AsType[*ledgersync.SlowClockError](err); ok {
		return conflict(slow)
	}
	return err
}

// checkStealFlags refuses what --steal cannot be combined with.
func checkStealFlags(command string, shared, force, notify bool) error {
	switch {
	case shared:
		return usagef(command, "%s takes an exclusive reservation; leave out %s", wording.Param("steal"), wording.Param("shared"))
	case force:
		return stealOrForce(command)
	case notify:
		return usagef(command, "%s messages the holders it takes from; leave out %s", wording.Param("steal"), wording.Param("notify"))
	}
	return nil
}

// StealRequest takes paths (as reserve --steal) or an issue (as claim
// --steal) from a holder silent for longer than the team's threshold:
// the MCP tool steal.
type StealRequest struct {
	Patterns []string `json:"patterns,omitempty" jsonschema:"path globs to reserve exclusively, taking them from their holders (give these or claim)"`
	Claim    string   `json:"claim,omitempty" jsonschema:"a beads issue id to claim, taking it from its holder (give this or patterns)"`
	TTL      string   `json:"ttl,omitempty" jsonschema:"with patterns: how long the reservation lasts (default 2h)"`
	Reason   string   `json:"reason,omitempty" jsonschema:"why, told to each holder"`
}

// StealResult is the reservation or the claim the steal made.
type StealResult struct {
	Reserved *ReserveResult `json:"reserved,omitempty"`
	Claimed  *AssignResult  `json:"claimed,omitempty"`
}

// Steal takes paths or an issue from a silent holder. It is refused, as a
// conflict, while a holder has been seen within the threshold; each
// holder taken from gets a message, and reservations --all, assignments
// --all and doctor show who stole what from whom and when.
var Steal = UseCase[StealRequest, *StealResult]{Name: "steal", run: func(e *Env, r StealRequest) (*StealResult, error) {
	switch {
	case (len(r.Patterns) > 0) == (r.Claim != ""):
		return nil, &UsageError{Command: "steal", Msg: "give patterns (to reserve) or claim (an issue id), one of the two"}
	case r.Claim != "" && r.TTL != "":
		return nil, &UsageError{Command: "steal", Msg: "ttl is for patterns; a claim lasts until it is ended"}
	case r.Claim != "":
		res, err := claim(e, ClaimRequest{Issue: r.Claim, Reason: r.Reason, Steal: true})
		if res == nil {
			return nil, err
		}
		return &StealResult{Claimed: res}, err
	}
	res, err := reserve(e, ReserveRequest{Patterns: r.Patterns, TTL: r.TTL, Reason: r.Reason, Steal: true})
	if res == nil {
		return nil, err
	}
	return &StealResult{Reserved: res}, err
}}

// stealOrForce refuses a request that asks for both ways past a holder.
func stealOrForce(command string) *UsageError {
	return usagef(command, "%[1]s and %[2]s are two ways past a holder: %[1]s only from one silent for longer than the team allows, %[2]s from anyone; give one",
		wording.Param("steal"), wording.Param("force"))
}
