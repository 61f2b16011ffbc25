package reservations

import (
	"fmt"
	"slices"
	"time"

	"github.com/git-queen/git-queen/internal/domain/messages"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// The messages reservations send on a droid's behalf, each from the droid
// that acted, to the holder it concerns, importance high: a request
// (reserve --notify), a grant made over the holder's reservation (reserve
// --force), a forced release or renewal. Each body lists the
// reservations by pattern and id, within messages.MaxListing.

// byHolder groups the conflicts by the droid holding the reservation,
// holders in order of appearance. A place in the queue (reserve --wait)
// holds nothing: its droid is no holder to ask or to tell of a grant over
// its paths.
func byHolder(found []Conflict) (holders []string, lines map[string][]string) {
	lines = map[string][]string{}
	for _, c := range found {
		if c.Held.Status == records.ReservationWaiting {
			continue
		}
		h := c.Held.Droid
		if _, ok := lines[h]; !ok {
			holders = append(holders, h)
		}
		lines[h] = append(lines[h], fmt.Sprintf("%s overlaps your %s (%s)", c.Requested, c.Held.Pattern, c.Held.ID))
	}
	return holders, lines
}

// notify sends each holder one message naming the requester, the patterns
// and the reason.
func (s *Store) notify(tx *jsonl.Tx, req Request, found []Conflict) ([]records.Message, error) {
	return s.tellHolders(tx, req, found, "Reservation request from "+req.Droid, req.Droid+" asks for paths you hold:\n",
		"Release with `git queen release PATTERN` when you can, or reply.")
}

// tellOverridden tells each holder that req was granted over their
// reservations with --force: the hook now refuses their commits to the
// paths both match, when the grant is exclusive.
func (s *Store) tellOverridden(tx *jsonl.Tx, req Request, found []Conflict) ([]records.Message, error) {
	return s.tellHolders(tx, req, found, req.Droid+" reserved over your reservation (--force)",
		req.Droid+" reserved paths you hold, with --force (exclusively: the pre-commit hook now refuses other droids' commits there):\n",
		"See `git queen conflicts`; settle it with "+req.Droid+" (git queen msg reply), or release yours.")
}

// tellHolders sends each holder of the conflicts found one message from
// req's droid: subject, and a body of intro, the holder's reservations
// that req ran into, req's reason and outro.
func (s *Store) tellHolders(tx *jsonl.Tx, req Request, found []Conflict, subject, intro, outro string) ([]records.Message, error) {
	holders, lines := byHolder(found)
	var sent []records.Message
	for _, h := range holders {
		body := intro + messages.Listing(slices.Compact(lines[h]), messages.MaxListing) + messages.ReasonLine(req.Reason) + outro
		msgs, err := messages.Notify(tx, s.S, req.Droid, h, subject, body, req.IssueID)
		if err != nil {
			return nil, err
		}
		sent = append(sent, msgs...)
	}
	return sent, nil
}

// tellHolder tells the holder what a forced release or renewal did to
// their reservations.
func (s *Store) tellHolder(tx *jsonl.Tx, c ChangeRequest, changed []records.Reservation) ([]records.Message, error) {
	items := make([]string, len(changed))
	for i, r := range changed {
		items[i] = r.Pattern + " (" + r.ID + ")"
	}
	what, verb := "your reservation "+changed[0].Pattern, "released"
	if len(changed) > 1 {
		what = fmt.Sprintf("%d of your reservations", len(changed))
	}
	next := "Reserve again (git queen reserve) if you still need them, or reply."
	if c.Renew {
		verb = "renewed"
		next = fmt.Sprintf("They now expire at %s; release them (git queen release) when you are done, or reply.",
			changed[0].ExpiresAt.UTC().Format(time.RFC3339))
	}
	body := fmt.Sprintf("%s %s your reservations with --force:\n", c.By, verb) + messages.Listing(items, messages.MaxListing) +
		messages.ReasonLine(c.Reason) + next
	return messages.Notify(tx, s.S, c.By, c.Holder, c.By+" "+verb+" "+what+" (--force)", body, "")
}
