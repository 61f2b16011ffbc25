package ledgersync

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/git-queen/git-queen/internal/base/regular"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/gitrepo/object"
	"github.com/git-queen/git-queen/internal/storage/ledger"
)

// unrecorded returns the lines this clone appended to its logs since the
// recorded marks, and the marks at their new ends. Only whole lines count: a
// torn final line is left for the next append to set aside. A log that no
// longer starts with what was recorded (rewritten by something other than
// git-queen) is reconciled against the ledger commit parent instead: every
// line of it the ledger lacks is recorded.
func (s *Syncer) unrecorded(recorded map[string]Mark, parent object.ID) (ledger.Lines, map[string]Mark, error) {
	lines := ledger.Lines{}
	marks := map[string]Mark{}
	var all ledger.Lines // the ledger's lines, read once if a log needs reconciling
	for _, log := range ledger.Logs {
		added, mark, reconcile, err := readLogSince(s.S.WS.Path(log.File), recorded[log.File])
		if err != nil {
			return nil, nil, err
		}
		if reconcile {
			if all == nil {
				if all, err = s.ledger.All(parent); err != nil {
					return nil, nil, err
				}
			}
			added, _ = ledger.Subtract(added, all[log.File])
		}
		lines[log.File] = added
		if mark.Size > 0 {
			marks[log.File] = mark
		}
	}
	return lines, marks, nil
}

// readLogSince reads the whole lines of the log at path after the mark m
// and returns them with the mark at their end. When the log no longer
// holds m, it returns every whole line and reconcile = true. A log that
// does not exist holds nothing.
func readLogSince(path string, m Mark) (lines [][]byte, end Mark, reconcile bool, err error) {
	f, err := regular.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, Mark{}, false, nil
	}
	if err != nil {
		return nil, Mark{}, false, err
	}
	defer f.Close()
	data, from, held, err := readTail(f, m)
	if err != nil {
		return nil, Mark{}, false, fmt.Errorf("read %s: %w", path, err)
	}
	reconcile = !held
	whole := bytes.LastIndexByte(data, '\n') + 1
	if whole == 0 {
		return nil, m, reconcile, nil // nothing new, or only a torn line so far
	}
	for _, line := range bytes.Split(data[:whole-1], []byte{'\n'}) {
		if len(bytes.TrimSpace(line)) > 0 {
			lines = append(lines, line)
		}
	}
	if end, err = markAt(f, from+int64(whole)); err != nil {
		err = fmt.Errorf("read %s: %w", path, err)
	}
	return lines, end, reconcile, err
}

// readTail reads the log f from the mark m to its end, or from its start
// when f no longer holds m (held = false).
func readTail(f *os.File, m Mark) (data []byte, from int64, held bool, err error) {
	info, err := f.Stat()
	if err != nil {
		return nil, 0, false, err
	}
	size := info.Size()
	if held = m.holds(f, size); held {
		from = m.Size
	}
	data = make([]byte, size-from)
	if _, err := f.ReadAt(data, from); err != nil && !errors.Is(err, io.EOF) {
		return nil, 0, false, err
	}
	return data, from, held, nil
}

// readTailOf is readTail of the log at path.
func readTailOf(path string, m Mark) (data []byte, held bool, err error) {
	f, err := regular.Open(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	data, _, held, err = readTail(f, m)
	return data, held, err
}

// countRecords counts the lines of data that are not blank.
func countRecords(data []byte) int {
	n := 0
	for line := range bytes.Lines(data) {
		if len(bytes.TrimSpace(line)) > 0 && !records.IsPresence(line) { // presence is bookkeeping, not counted
			n++
		}
	}
	return n
}

// linesBetween counts the records of the log at path between two marks (0
// when from no longer holds: the log was rewritten by something else).
func linesBetween(path string, from, to Mark) int {
	if to.Size <= from.Size {
		return 0
	}
	data, held, err := readTailOf(path, from)
	if err != nil || !held || int64(len(data)) < to.Size-from.Size {
		return 0
	}
	return countRecords(data[:to.Size-from.Size])
}
