package ledgersync

import (
	"strings"
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/format/records"
)

// versionReader reads a line's id and version time in one scan of it; it
// is not safe for concurrent use.
type versionReader struct {
	keys []string
	vals [][]byte
	pick *jsonline.Picker
}

func newVersionReader() *versionReader {
	keys := append([]string{jsonline.DefaultKey}, records.Versions.Fields...)
	return &versionReader{keys: keys, vals: make([][]byte, len(keys)), pick: records.Versions.Picker(keys)}
}

// of is versionOf, with the version's time (records.VersionTime).
func (r *versionReader) of(line []byte) (id string, at time.Time, ok bool) {
	if jsonline.ObjectFields(line, r.keys, r.vals) != nil {
		return "", time.Time{}, false
	}
	id, ok = jsonline.String(r.vals[0])
	if !ok || id == "" || strings.ContainsAny(id, " \n") {
		return "", time.Time{}, false
	}
	at = r.pick.Time(r.vals)
	return id, at, !at.IsZero()
}
