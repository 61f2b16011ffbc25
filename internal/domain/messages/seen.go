package messages

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"slices"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/base/mapfile"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// seen reports whether a record of the stores names droid in one of the
// fields KnownDroids reads; a presence record (package roster) does not
// count, as KnownDroids does not count it. It looks for the quoted name from the end of
// each log, newest records first, and checks the fields of each line
// that holds it, so the droids a team writes to cost a look at the
// recent records, whatever the stores' size (a selection of every record
// naming the droid, cached or not, cost tens to hundreds of milliseconds
// on 100,000 messages). A name written with JSON escapes is not found
// here: false means "not found this way", and the caller then asks
// KnownDroids, which decodes every name.
func seen(s *store.Store, droid string) (bool, error) {
	quoted, err := json.Marshal(droid)
	if err != nil {
		return false, err
	}
	for _, src := range records.Kinds {
		paths, err := s.Sources(src.File)
		if err != nil {
			return false, err
		}
		for _, path := range paths.Paths {
			found, err := namedIn(path, quoted, droid, src.DroidFields)
			if err != nil || found {
				return found, err
			}
		}
	}
	return false, nil
}

// namedIn scans the log at path for quoted, from the end a chunk at a
// time (bytes.Index is vectorised; bytes.LastIndex is not), and reports
// whether a line holding it, not a presence record, names droid in one of
// fields.
func namedIn(path string, quoted []byte, droid string, fields []string) (bool, error) {
	data, release, err := mapfile.Open(path, false)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer release()
	out := make([][]byte, len(fields))
	names := func(at int) bool {
		start := bytes.LastIndexByte(data[:at], '\n') + 1
		stop := bytes.IndexByte(data[at:], '\n')
		if stop < 0 {
			stop = len(data) - at
		}
		line := data[start : at+stop]
		return jsonline.ObjectFields(line, fields, out) == nil &&
			slices.ContainsFunc(out, func(raw []byte) bool { return jsonline.StringEquals(raw, droid) }) && !records.IsPresence(line)
	}
	var hits []int
	// The first chunk is small, since a droid a team writes to is named in
	// its newest lines; each next one doubles, up to seenChunkMax: a
	// chunk's pages are faulted in as it is searched.
	for end, size := len(data), seenChunk; end > 0; end, size = end-size, min(2*size, seenChunkMax) {
		// Chunks overlap by the length of quoted, so a hit across a
		// boundary is found in the later one.
		from := max(end-size, 0)
		chunk := data[from:min(end+len(quoted)-1, len(data))]
		hits = hits[:0]
		for k := 0; ; {
			j := bytes.Index(chunk[k:], quoted)
			if j < 0 {
				break
			}
			hits = append(hits, from+k+j)
			k += j + 1
		}
		for h := len(hits) - 1; h >= 0; h-- {
			if hits[h] < end && names(hits[h]) { // a hit at or past end was the later chunk's
				return true, nil
			}
		}
	}
	return false, nil
}

// seenChunk is how much of a log namedIn searches first, from its end;
// seenChunkMax how much at a time as it goes back.
const (
	seenChunk    = 16 << 10
	seenChunkMax = 1 << 20
)
