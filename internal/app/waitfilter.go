package app

import (
	"github.com/git-queen/git-queen/internal/base/wording"
	"github.com/git-queen/git-queen/internal/domain/messages"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// checkReplyTo refuses a wait for a reply to a message the store does not
// have (a typo, an id in lower case), as msg send refuses it: no message
// could ever match, and the command line, which waits as long as it takes
// unless given a timeout, would never return. A droid waits for the answer
// to a message it sent, which its store holds. (Filters no record may hold
// at all, a name with a space, are refused before the store is opened.)
func checkReplyTo(s *store.Store, f messages.WaitFilter) error {
	if f.ReplyTo == "" {
		return nil
	}
	if _, _, err := (&messages.Store{S: s}).Get(f.ReplyTo); err != nil {
		return wording.Errorf("%s: %w", wording.Param("reply_to"), err)
	}
	return nil
}
