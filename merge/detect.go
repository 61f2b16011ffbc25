package merge

import (
	"bytes"
	"path"
	"slices"
	"strings"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/format/st"
)

// sampleLines is how many lines of each input detection reads. Detection
// must cost nothing next to the merge of a 50 MB log, and a file's first
// lines say what it is.
const sampleLines = 64

// Detect chooses the format of a file from its path in the repository and,
// when the name says nothing, from its content (each input's first lines).
// The rules, first match wins:
//
//   - an input that is a Git LFS pointer: Text (see isLFSPointer)
//   - a store's log (records.Kinds): the kind's Merge strategy
//   - other queen_*.jsonl (archives, renamed copies): Queen
//   - .beads/issues.jsonl, .beads/beads.jsonl (beads snapshots): Snapshot;
//     a file of that name elsewhere may be any log, which a snapshot
//     merge would cut to one line per id, so it is detected by content
//   - .work/events.jsonl (VerMAS): Events
//   - .work/work_orders.jsonl, .work/messages.jsonl (VerMAS projections,
//     one record per id), .work/routes.jsonl (one route per prefix): Snapshot
//   - .openclaw-autopilot/events/events.jsonl or checkpoints.jsonl: Autopilot
//   - content that is not JSON at all (no input has a JSON line among its
//     first lines, or, for a name without a JSONL extension, some line is
//     not JSON): Text
//   - content whose first JSON lines are st v3 records: Stream
//   - anything else: Lines
//
// Detection reads ours and theirs alike, so it never depends on which side
// is which.
func Detect(p string, inputs ...[]byte) Format {
	if slices.ContainsFunc(inputs, isLFSPointer) {
		return Text
	}
	p = strings.ReplaceAll(p, "\\", "/")
	name := path.Base(p)
	dir := path.Base(path.Dir(p))
	if kind, ok := records.KindOf(name); ok {
		return Format(kind.Merge)
	}
	switch {
	case strings.HasPrefix(name, "queen_") && strings.HasSuffix(name, ".jsonl"):
		return Queen
	case (name == "issues.jsonl" || name == "beads.jsonl") && dir == ".beads":
		return Snapshot
	case name == "events.jsonl" && dir == ".work":
		return Events
	case dir == ".work" && vermasSnapshots[name] != "":
		return Snapshot
	case (name == "events.jsonl" || name == "checkpoints.jsonl") && dir == "events" &&
		path.Base(path.Dir(path.Dir(p))) == ".openclaw-autopilot":
		return Autopilot
	}
	jsonExt := slices.Contains([]string{".jsonl", ".ndjson", ".jsonlines"}, path.Ext(name))
	json, other, stream, nonStream := 0, 0, 0, 0
	for _, in := range inputs {
		n, firstJSON := 0, true
		for l := range jsonline.Lines(in) {
			if n == sampleLines {
				break
			}
			if l.Blank() || jsonline.IsConflictMarker(l.Raw) {
				continue
			}
			n++
			if jsonline.Valid(l.Raw) != nil {
				other++
				continue
			}
			json++
			if firstJSON {
				firstJSON = false
				if st.LooksLikeStream(l.Raw) {
					stream++
				} else {
					nonStream++
				}
			}
		}
	}
	switch {
	case json == 0 && other > 0, !jsonExt && other > 0:
		return Text
	case stream > 0 && nonStream == 0:
		return Stream
	}
	return Lines
}

// vermasSnapshots are VerMAS's files in .work/ that hold one current record
// per key (seed 004), by name, with the field that names a record: the
// projections of work orders and messages (id) and the routes (prefix).
// Detect and snapshotKey both read it, so a file merged as a snapshot is
// always keyed as its format says.
var vermasSnapshots = map[string]string{
	"work_orders.jsonl": "id",
	"messages.jsonl":    "id",
	"routes.jsonl":      "prefix",
}

// isLFSPointer reports whether an input is a Git LFS pointer file. Where a
// log's path has both merge=queen and filter=lfs (git lfs track ran before
// git queen init wrote its lines), git hands the driver the pointers, not
// the JSONL; merged as lines of a known format they became one pointer with
// both sides' oid and size lines, a broken pointer, without a conflict.
// Git's text merge shows the conflict git shows without the driver.
func isLFSPointer(in []byte) bool {
	return bytes.HasPrefix(in, []byte("version https://git-lfs.github.com/spec/"))
}
