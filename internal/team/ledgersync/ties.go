package ledgersync

import (
	"bufio"
	"bytes"
	"errors"
	"hash/maphash"
	"io"
	"math"
	"os"
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/base/regular"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// ties answers the one question about an incoming version that times
// cannot: its time equals that of the newest version this clone holds of
// its record. Versions with equal times are ordered by their bytes (the
// larger wins, on every clone, in every reader), so the incoming one is
// applied only when its bytes are larger than the held one's. The same
// bytes are the same version, which a ledger can carry twice (two chunks,
// two commits: a teammate's hand, or a merge of histories that both hold
// it); applied again, it became a second identical line in received/,
// which readers took as one but `validate` and `doctor` report as a
// union merge's damage. Smaller bytes lose everywhere, as an older
// version does, and stay in the ledger only.
//
// Equal times are rare (two clones writing one record in the same
// instant, or a repeated version), so the bytes are read only then: held
// reads the line a log's index (or, without one, its one read) places,
// applied the line this merge appended last for the id. Either may be nil:
// an equal time is then applied, as it was before the bytes were
// compared.
type ties struct {
	// held says whether a log this clone held when the merge began holds
	// a version of id written at `at` whose bytes are line's or larger.
	held func(id string, at time.Time, line []byte) (bool, error)
	// applied says whether the version of id that this merge applied
	// last (at the same time) has line's bytes or larger.
	applied func(id string, at time.Time, line []byte) (bool, error)
	// parties says whether line names the parties of the version of id
	// a log this clone held when the merge began holds
	// (records.SameParties).
	parties func(id string, line []byte) bool
	// file is the log of the versions asked about.
	file string
	// first is what the merge learns of the records this clone held no
	// version of whose versions name other parties, and which came first
	// in the ledger's history (see firsts).
	first *firsts
}

// holds reports whether the line at offset in f is a version of id
// written at `at` with bytes at least line's. A line that cannot be read,
// or is another id's or time's (a stale place), holds nothing: the
// incoming version is applied, the old rule.
func holds(f *os.File, offset int64, buf []byte, versions *versionReader, id string, at time.Time, line []byte) bool {
	raw, err := lineAt(f, offset, buf)
	if err != nil {
		return false
	}
	gotID, gotAt, ok := versions.of(raw)
	return ok && gotID == id && gotAt.Equal(at) && bytes.Compare(raw, line) >= 0
}

// lineAt is the line of a log that starts at offset, as its readers take
// it (without its line ending).
func lineAt(f *os.File, offset int64, buf []byte) ([]byte, error) {
	raw, err := jsonl.ReadLine(f, offset, buf)
	raw, _ = jsonline.TrimLine(raw, offset == 0)
	return raw, err
}

// mergeLines places, by id, the last line a merge appended of each
// record to one received log, so that applied can read it. It is made
// when a merge first meets an equal time in that log (reading back what
// the merge appended so far), then kept as the merge appends, and costs
// nothing to a merge that meets none.
type mergeLines struct {
	f        *os.File
	seed     maphash.Seed
	at       map[uint64]int64 // by the id's hash; holds checks the id
	end      int64            // where the log ends
	buf      []byte
	versions *versionReader
}

// readMergeLines reads path from offset from (where the merge began to
// append) to its end.
func readMergeLines(path string, from int64) (*mergeLines, error) {
	f, err := regular.Open(path)
	if err != nil {
		return nil, err
	}
	m := &mergeLines{f: f, seed: maphash.MakeSeed(), at: map[uint64]int64{}, end: from, versions: newVersionReader()}
	if err := eachLine(f, from, func(line []byte) { m.add(line, "") }); err != nil {
		f.Close()
		return nil, err
	}
	return m, nil
}

// eachLine hands fn each line of the log f from offset from to its end,
// without its newline, in a buffer fn may keep only during the call.
func eachLine(f *os.File, from int64, fn func(line []byte)) error {
	r := bufio.NewReaderSize(io.NewSectionReader(f, from, math.MaxInt64-from), 64<<10)
	for {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer: no version git-queen
			// applies (records are bounded), but kept in step.
			long := append([]byte(nil), line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = r.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if len(line) > 0 {
			fn(bytes.TrimSuffix(line, []byte("\n")))
		}
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}

// add notes line, appended at m.end, as the last version of its record
// (id, when the caller read it; else read here).
func (m *mergeLines) add(line []byte, id string) {
	if id == "" {
		id, _, _ = m.versions.of(line)
	}
	if id != "" {
		m.at[maphash.String(m.seed, id)] = m.end
	}
	m.end += int64(len(line)) + 1
}

// holds is ties.applied for this log.
func (m *mergeLines) holds(id string, at time.Time, line []byte) bool {
	offset, ok := m.at[maphash.String(m.seed, id)]
	return ok && holds(m.f, offset, m.buf, m.versions, id, at, line)
}

func (m *mergeLines) close() { m.f.Close() }
