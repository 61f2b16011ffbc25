package messages

import (
	"maps"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
)

// TestStats counts the current version of each message once (a read or a
// delete is a new version of it), per recipient, sender and importance,
// and since a moment (strictly after it), and sees messages appended
// after a first count (its cached selection follows the log).
func TestStats(t *testing.T) {
	f := newFixture(t)
	d := func(from, to, importance string) Draft {
		return Draft{From: from, To: to, Subject: "s", Importance: importance}
	}
	first := f.send(t, d("ann", "bob", records.ImportanceNormal))
	f.send(t, d("ann", "bob", records.ImportanceHigh))
	cut := f.clock.Now()
	third := f.send(t, d("bob", "ann", records.ImportanceUrgent))
	if _, _, err := f.m.MarkRead(first.ID, "bob"); err != nil {
		t.Fatal(err)
	}
	got, err := f.m.Stats(cut)
	if err != nil {
		t.Fatal(err)
	}
	check := func(got Stats, total, unread, sinceTotal, sinceUnread int, to, from, imp map[string]int) {
		t.Helper()
		if got.Total != total || got.Unread != unread || got.SinceTotal != sinceTotal || got.SinceUnread != sinceUnread {
			t.Errorf("total %d unread %d since %d/%d, want %d %d %d/%d", got.Total, got.Unread, got.SinceTotal, got.SinceUnread,
				total, unread, sinceTotal, sinceUnread)
		}
		for _, c := range []struct {
			name      string
			got, want map[string]int
		}{{"by recipient", got.ByRecipient, to}, {"by sender", got.BySender, from}, {"by importance", got.ByImportance, imp}} {
			if !maps.Equal(c.got, c.want) {
				t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
			}
		}
	}
	check(got, 3, 2, 1, 1, map[string]int{"bob": 2, "ann": 1}, map[string]int{"ann": 2, "bob": 1},
		map[string]int{"normal": 1, "high": 1, "urgent": 1})

	// A deleted message leaves the counts; a new one joins them.
	if _, err := f.m.Delete(third.ID, "bob"); err != nil {
		t.Fatal(err)
	}
	f.send(t, d("cat", "ann", records.ImportanceLow))
	got, err = f.m.Stats(time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	check(got, 3, 2, 0, 0, map[string]int{"bob": 2, "ann": 1}, map[string]int{"ann": 2, "cat": 1},
		map[string]int{"normal": 1, "high": 1, "low": 1})
}
