package app

import (
	"github.com/git-queen/git-queen/internal/base/wording"
	"github.com/git-queen/git-queen/internal/domain/messages"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// checkWaitFilter refuses a filter no message can ever match, since a wait
// for it ends only at its timeout, and on the command line, which waits
// as long as it takes unless given one, never: a name or an issue id no
// record may hold, and a reply to a message the store does not have (a
// typo, an id in lower case; a droid waits for the answer to a message it
// sent, which its store holds), refused as msg send refuses it.
func checkWaitFilter(s *store.Store, f messages.WaitFilter) error {
	for _, c := range []struct {
		param, value string
		valid        func(string) error
	}{
		{"from", f.From, records.ValidateDroid},
		{"thread", f.Thread, records.ValidateIssueID}, // a message id passes as an issue id
		{"issue", f.Issue, records.ValidateIssueID},
	} {
		if c.value == "" {
			continue
		}
		if err := c.valid(c.value); err != nil {
			return usagef("msg wait", "%s: %v: no message can match it", wording.Param(c.param), err)
		}
	}
	if f.ReplyTo != "" {
		if _, _, err := (&messages.Store{S: s}).Get(f.ReplyTo); err != nil {
			return wording.Errorf("%s: %w", wording.Param("reply_to"), err)
		}
	}
	return nil
}
