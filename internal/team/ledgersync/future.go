package ledgersync

import (
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// arrivalsOf lists the reservation versions among lines that claim a time
// further ahead of now than records.MaxClockSkew, with when each ends here
// (records.ReceiptBound), and the furthest ahead any claimed to be.
func arrivalsOf(lines [][]byte, now time.Time) (out []store.Arrival, ahead time.Duration) {
	keys := []string{jsonline.DefaultKey, "expires_at"}
	vals := make([][]byte, len(keys))
	for _, line := range lines {
		written := records.VersionTime(line)
		if !written.After(now.Add(records.MaxClockSkew)) {
			continue
		}
		if jsonline.ObjectFields(line, keys, vals) != nil {
			continue
		}
		id, ok := jsonline.String(vals[0])
		expires, ok2 := records.ParseTime(vals[1])
		if !ok || !ok2 {
			continue
		}
		until, _ := records.ReceiptBound(written, expires, now)
		out = append(out, store.Arrival{ID: id, Version: records.VersionKey(line), At: now, Until: until})
		ahead = max(ahead, written.Sub(now))
	}
	return out, ahead
}
