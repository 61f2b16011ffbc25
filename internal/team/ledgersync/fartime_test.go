package ledgersync

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/base/ids"
	"github.com/git-queen/git-queen/internal/format/records"
)

// messageBetween is a version of message id created at created and
// written at updated.
func messageBetween(id string, created, updated time.Time, subject string) []byte {
	return fmt.Appendf(nil, `{"id":%q,"created_at":%q,"updated_at":%q,"from":"ann","to":"bob","subject":%q,"body":"","importance":"normal","read":false}`,
		id, created.Format(time.RFC3339Nano), updated.Format(time.RFC3339Nano), subject)
}

// Version times that obey every rule but lie outside what nanoseconds
// since 1970 hold in an int64 (before 1678, after 2262) order as times
// do: a version older than one received/ holds is not applied, and a
// newer one is. The logs' indexes kept such times wrapped around (the
// year 9999 as 1816, the year 1000 as 2169), and a sync that asked them
// applied a 2026 version over one from 9999, and refused one from 2026
// over one from the year 1000; the version index compared the times
// themselves.
func TestVersionTimesOutsideNanosOrderAsTimes(t *testing.T) {
	base := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	far := time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)
	ancient := time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name           string
		created, first time.Time // the version b holds
		second         time.Time // the one that arrives after it
		appliedSecond  bool
	}{
		{"a version from 2026 after one from 9999", base, far, base.Add(time.Second), false},
		{"a version from 2026 after one from the year 1000", ancient, ancient, base, true},
		{"a version from 9999 after one from 2026", base, base, far, true},
		{"a version from the year 1000 after one from 2026", ancient, base, ancient.Add(time.Second), false},
		// Past 2116 an index holds times to the second: the version's own
		// time decides.
		{"a version from 2120 after one from 2150", base, time.Date(2150, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2120, 1, 1, 0, 0, 0, 0, time.UTC), false},
		{"a version a nanosecond older after one from 2150", base, time.Date(2150, 1, 1, 0, 0, 0, 5, time.UTC), time.Date(2150, 1, 1, 0, 0, 0, 4, time.UTC), false},
		{"a version a nanosecond newer after one from 2150", base, time.Date(2150, 1, 1, 0, 0, 0, 4, time.UTC), time.Date(2150, 1, 1, 0, 0, 0, 5, time.UTC), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRemote(t)
			c := &clock{base.Add(time.Hour)}
			a, b := newClone(t, r, c), newClone(t, r, c)
			id := ids.NewMessage()
			for _, line := range [][]byte{messageBetween(id, tc.created, tc.first, "first"), messageBetween(id, tc.created, tc.second, "second")} {
				if e := records.CheckVersion(records.MessagesFile, line); e != nil {
					t.Fatalf("the version breaks a rule: %v", e)
				}
			}
			a.write(t, records.MessagesFile, messageBetween(id, tc.created, tc.first, "first"))
			a.sync(t)
			b.sync(t)
			if got := b.receivedSubjects(t, id); len(got) != 1 || got[0] != "first" {
				t.Fatalf("b received %v, want [first]", got)
			}
			a.write(t, records.MessagesFile, messageBetween(id, tc.created, tc.second, "second"))
			a.sync(t)
			b.sync(t)
			got := b.receivedSubjects(t, id)
			if applied := got[len(got)-1] == "second"; applied != tc.appliedSecond {
				t.Fatalf("received/ holds %v of the record: the second applied %v, want %v", got, applied, tc.appliedSecond)
			}
		})
	}
}

// Two versions within one second past 2116, where a log's index holds
// times to the second: the index keeps the later as current, whatever
// their bytes say ("...00Z" sorts after "...00.25Z"), whether its
// appends or a rebuild from the log made it, and a version between them
// that arrives last is not applied.
func TestVersionsWithinOneSecondPast2116OrderAsTimes(t *testing.T) {
	for _, rebuilt := range []bool{false, true} {
		t.Run(fmt.Sprint("rebuilt=", rebuilt), func(t *testing.T) {
			base := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
			far := time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC)
			r := newRemote(t)
			c := &clock{base.Add(time.Hour)}
			a, b := newClone(t, r, c), newClone(t, r, c)
			id := ids.NewMessage()
			for i, at := range []time.Time{far, far.Add(250 * time.Millisecond), far.Add(100 * time.Millisecond)} {
				if i == 2 && rebuilt {
					// Another program appends: the next sync rebuilds
					// the received log's index from the log.
					f, err := os.OpenFile(b.s.ReceivedLog(records.MessagesFile).Path, os.O_WRONLY|os.O_APPEND, 0)
					if err != nil {
						t.Fatal(err)
					}
					f.WriteString("\n")
					f.Close()
				}
				a.write(t, records.MessagesFile, messageBetween(id, base, at, fmt.Sprint(i)))
				a.sync(t)
				b.sync(t)
			}
			if got := b.receivedSubjects(t, id); len(got) != 2 || got[1] != "1" {
				t.Fatalf("received/ holds %v of the record, want [0 1]", got)
			}
		})
	}
}
