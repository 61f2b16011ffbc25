package ledgersync

import (
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// arrivalsOf lists the versions among lines that claim a time further
// ahead of now than records.MaxClockSkew, with when each ends here: a
// reservation's by records.ReceiptBound; another's at its own time, when
// it stops being from the future (a sighting at its arrival till then,
// roster), or a week after it arrived, when that is sooner: a sighting a
// week old no longer decides whether a droid is silent. ahead is the
// furthest ahead any claimed to be. times, when not nil, are the lines'
// version times, as the caller's vetting read them: a join of 100,000
// records spent some 37 ms reading them again.
func arrivalsOf(lines [][]byte, times []time.Time, now time.Time) (out []store.Arrival, ahead time.Duration) {
	keys := []string{jsonline.DefaultKey, "expires_at"}
	vals := make([][]byte, len(keys))
	for i, line := range lines {
		var written time.Time
		if times != nil {
			written = times[i]
		} else {
			written = records.VersionTime(line)
		}
		if !written.After(now.Add(records.MaxClockSkew)) || jsonline.ObjectFields(line, keys, vals) != nil {
			continue
		}
		id, ok := jsonline.String(vals[0])
		if !ok {
			continue
		}
		until := written
		if week := now.Add(records.MaxReservationTTL); until.After(week) {
			until = week // a message dated 2099 is noted a week, not till then
		}
		if expires, ok := records.ParseTime(vals[1]); ok {
			until, _ = records.ReceiptBound(written, expires, now)
		}
		out = append(out, store.Arrival{ID: id, Version: records.VersionKey(line), At: now, Until: until})
		ahead = max(ahead, written.Sub(now))
	}
	return out, ahead
}
