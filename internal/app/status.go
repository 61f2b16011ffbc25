package app

import (
	"cmp"
	"slices"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/base/wording"
	"github.com/git-queen/git-queen/internal/domain/messages"
	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/format/records"
)

// StatusRequest bounds what a status lists (the counts are always whole).
type StatusRequest struct {
	Messages     int `json:"messages,omitempty" jsonschema:"at most this many unread messages, the newest (default 3)"`
	Reservations int `json:"reservations,omitempty" jsonschema:"at most this many active reservations, yours first (default 5)"`
}

// StatusResult is what a droid should know when it starts: its unread
// messages (how many, and the newest few) and the active reservations
// (how many, and a few: its own first, then the others' newest). Droid is
// "" when no identity is set; then there is no inbox to count, and
// IdentityNote says why when an identity was configured but is not this
// worktree's (git worktree add copied another's) or is not a valid name,
// in the words of the front end that asks (SayIn).
type StatusResult struct {
	Droid        string                `json:"droid"`
	IdentityNote string                `json:"identity_note,omitempty"`
	Unread       int                   `json:"unread"`
	Messages     []records.Message     `json:"messages"`
	Active       int                   `json:"active_reservations"`
	Reservations []records.Reservation `json:"reservations"`
	Problems     []Problem             `json:"problems"`

	identityNote wording.Text
}

// SayIn says the result's notes in a front end's words: the identity's
// note, written for both, asks an MCP server to be started again, which
// the command line reads at every run.
func (r *StatusResult) SayIn(w wording.Words) *StatusResult {
	if !r.identityNote.IsZero() {
		r.IdentityNote = r.identityNote.In(w)
	}
	return r
}

// Status is the reminder an agent gets where it starts (a session-start
// hook): unread messages and active reservations, in a few lines.
var Status = UseCase[StatusRequest, *StatusResult]{Name: "status", run: status}

func status(e *Env, r StatusRequest) (*StatusResult, error) {
	r.Messages, r.Reservations = cmp.Or(r.Messages, 3), cmp.Or(r.Reservations, 5)
	s, err := e.OpenStore()
	if err != nil {
		return nil, err
	}
	me := e.Identity()
	res := &StatusResult{Droid: me, Messages: []records.Message{}, Reservations: []records.Reservation{}, Problems: []Problem{}}
	if me == "" {
		res.IdentityNote, res.identityNote = e.identityNote.String(), e.identityNote
	} else {
		page, err := (&messages.Store{S: s}).Inbox(me, messages.InboxOptions{UnreadOnly: true, Limit: r.Messages})
		if err != nil {
			return nil, err
		}
		res.Unread, res.Messages = len(page.Messages)+page.More, jsonline.NonNil(page.Messages)
		res.Problems = append(res.Problems, Problems(page.Problems)...)
	}
	list, problems, err := (&reservations.Store{S: s}).List(reservations.Filter{Me: me})
	if err != nil {
		return nil, err
	}
	res.Problems = append(res.Problems, Problems(problems)...)
	res.Active = len(list) // List keeps those active for me (ActiveFor)
	// The droid's own first, then the others' newest first.
	slices.Reverse(list)
	slices.SortStableFunc(list, func(a, b reservations.Live) int {
		return cmp.Compare(ownFirst(a.Droid, me), ownFirst(b.Droid, me))
	})
	for _, l := range list[:min(len(list), r.Reservations)] {
		res.Reservations = append(res.Reservations, l.Reservation)
	}
	return res, nil
}

// ownFirst orders the droid's own reservations (0) before the others' (1).
func ownFirst(droid, me string) int {
	if me != "" && droid == me {
		return 0
	}
	return 1
}
