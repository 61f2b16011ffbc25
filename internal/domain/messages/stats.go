package messages

import (
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// Stats counts the messages of the store (the current version of each,
// deleted ones left out), as QueenBee's msg stats does: how many, how many
// unread, per recipient, per sender and per importance, and the same two
// counts for the messages created since a time.
type Stats struct {
	Total        int            `json:"total"`
	Unread       int            `json:"unread"`
	ByRecipient  map[string]int `json:"by_agent"`
	BySender     map[string]int `json:"by_sender"`
	ByImportance map[string]int `json:"by_importance"`
	SinceTotal   int            `json:"since_total"`
	SinceUnread  int            `json:"since_unread"`
	// Problems are lines of the logs that could not be read; a message
	// whose created_at does not parse counts in the totals, not since.
	Problems []jsonl.Problem `json:"-"`
}

// Stats counts the messages; since, when not zero, also counts those
// created after it. It reads only the fields it counts (a lean
// selection), never whole messages.
func (m *Store) Stats(since time.Time) (Stats, error) {
	const to, from, importance, created, deleted, read = 0, 1, 2, 3, 4, 5
	q := jsonl.Query{
		Fields:   []string{"to", "from", "importance", "created_at", "deleted", "read"},
		Versions: records.Versions,
		Lean:     true,
	}
	st := Stats{ByRecipient: map[string]int{}, BySender: map[string]int{}, ByImportance: map[string]int{}}
	problems, err := m.S.Visit(records.MessagesFile, store.Query{Name: "stats\x00lean", Query: q}, func(e *jsonl.Entry) error {
		if string(e.Fields[deleted]) == "true" {
			return nil
		}
		unread := string(e.Fields[read]) != "true"
		st.Total++
		if unread {
			st.Unread++
		}
		st.ByRecipient[fieldString(e.Fields[to])]++
		st.BySender[fieldString(e.Fields[from])]++
		st.ByImportance[fieldString(e.Fields[importance])]++
		if since.IsZero() {
			return nil
		}
		if t, ok := records.ParseTime(e.Fields[created]); ok && t.After(since) {
			st.SinceTotal++
			if unread {
				st.SinceUnread++
			}
		}
		return nil
	})
	if err != nil {
		return Stats{}, err
	}
	st.Problems = problems
	return st, nil
}

// fieldString is a string field's value; a missing or non-string one
// counts under "" (a record validate would report).
func fieldString(raw []byte) string {
	s, _ := jsonline.String(raw)
	return s
}
