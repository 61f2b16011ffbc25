package messages

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/store"
	"github.com/git-queen/git-queen/internal/storage/workspace"
)

// messageLine is a message record line to ann or bob, created at minute
// created, with extra fields (a later version: read, deleted...).
func messageLine(id, to string, created int, extra string) string {
	return fmt.Sprintf(`{"id":%q,"created_at":"2026-11-01T10:%02d:00Z","from":"cat","to":%q,"subject":"s %s","body":"b","importance":"normal","read":false%s}`,
		id, created, to, id, extra)
}

// writeLog puts lines in the live store's message log, as sync or a merge
// may leave them: a message's current version is not always its last line.
func writeLog(t *testing.T, lines ...string) *Store {
	t.Helper()
	s := &store.Store{WS: &workspace.Workspace{Dir: t.TempDir(), Live: true}, NoSync: true}
	path := s.Log(records.MessagesFile).Path
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return &Store{S: s}
}

func idsOf(msgs []records.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.ID)
	}
	return out
}

func TestInboxPagesAreTheNewestOfTheWholeListing(t *testing.T) {
	m := writeLog(t,
		messageLine("qm-1", "ann", 1, ""),
		messageLine("qm-2", "ann", 2, ""),
		messageLine("qm-3", "bob", 3, ""),
		// qm-4's read version comes first; its older unread version after
		// it (a merge put it there): it is read.
		messageLine("qm-4", "ann", 4, `,"read_at":"2026-11-01T11:00:00Z","read":true,"updated_at":"2026-11-01T11:00:00Z"`),
		messageLine("qm-4", "ann", 4, ""),
		messageLine("qm-5", "ann", 5, ""),
		// qm-5 deleted later; qm-6 created earlier than qm-5 but written after.
		messageLine("qm-5", "ann", 5, `,"deleted":true,"updated_at":"2026-11-01T12:00:00Z"`),
		messageLine("qm-6", "ann", 0, ""),
		messageLine("qm-7", "ann", 7, ""),
		"not json",
	)
	all, err := m.Inbox("ann", InboxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"qm-7", "qm-4", "qm-2", "qm-1", "qm-6"}; !slices.Equal(idsOf(all.Messages), want) {
		t.Fatalf("inbox %v, want %v (newest first, no deleted, no other droid's)", idsOf(all.Messages), want)
	}
	if len(all.Problems) != 1 || all.More != 0 {
		t.Fatalf("problems %v, more %d; want the bad line and nothing more", all.Problems, all.More)
	}
	for limit := 1; limit <= 6; limit++ {
		page, err := m.Inbox("ann", InboxOptions{Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		n := min(limit, len(all.Messages))
		if !slices.Equal(idsOf(page.Messages), idsOf(all.Messages[:n])) || page.More != len(all.Messages)-n {
			t.Errorf("limit %d: %v and %d more; want %v and %d more", limit, idsOf(page.Messages), page.More,
				idsOf(all.Messages[:n]), len(all.Messages)-n)
		}
	}
	unread, err := m.Inbox("ann", InboxOptions{UnreadOnly: true, Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"qm-7", "qm-2"}; !slices.Equal(idsOf(unread.Messages), want) || unread.More != 2 {
		t.Errorf("unread, limit 2: %v and %d more; want %v and 2 more", idsOf(unread.Messages), unread.More, want)
	}
	if got := all.Messages[1]; !got.Read {
		t.Errorf("qm-4 is shown unread: its current version is the read one")
	}
	sent, err := m.Sent("cat", InboxOptions{Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"qm-7", "qm-4", "qm-3"}; !slices.Equal(idsOf(sent.Messages), want) || sent.More != 3 {
		t.Errorf("sent, limit 3: %v and %d more; want %v and 3 more", idsOf(sent.Messages), sent.More, want)
	}
}

// TestNewestListLeavesWhatItKeptInPlace offers messages oldest first, as a
// flood arrives: each offer must leave the messages kept where they were
// (kept in order one insertion at a time, each new message moved every
// kept one: an inbox of 150,000 took 55 s), and the list must still end
// newest first, cut to its limit.
func TestNewestListLeavesWhatItKeptInPlace(t *testing.T) {
	for _, limit := range []int{0, 1, 3, 1000} {
		l := newestList{limit: limit}
		for i := range 100 {
			e := jsonl.Entry{ID: fmt.Sprintf("qm-%03d", i)}
			l.offer(&e, time.Date(2026, 11, 1, 10, 0, i, 0, time.UTC))
			if (limit == 0 || i < 2*limit-1) && l.list[0].e.ID != "qm-000" {
				t.Fatalf("limit %d: offer %d moved the messages kept before it", limit, i)
			}
		}
		l.done()
		n := 100
		if limit > 0 {
			n = min(limit, 100)
		}
		var got []string
		for _, c := range l.list {
			got = append(got, c.e.ID)
		}
		var want []string
		for i := 99; i >= 100-n; i-- {
			want = append(want, fmt.Sprintf("qm-%03d", i))
		}
		if !slices.Equal(got, want) || l.seen != 100 {
			t.Errorf("limit %d: kept %v of %d offered; want %v of 100", limit, got, l.seen, want)
		}
	}
}
