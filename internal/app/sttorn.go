package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/git-queen/git-queen/internal/format/st"
)

// setAsideTornTail mends a stream whose last line was cut short by a write
// that was killed (or ran out of disk) before its newline: that line never
// became a record, so the write it belonged to never happened, and the
// stream before it is whole. The bytes go to a quarantine file beside the
// stream's lock (in git's common directory, out of the worktree that git
// add -A takes), after a header saying where they came from, as the
// store's logs set their torn tails aside; the stream is cut back to its
// last newline. A last line that is a record without its newline is left
// as it is (the append adds the newline). It returns the stream's bytes
// after, and what it did for a person ("" when nothing). It runs under
// the stream's lock, on the stream open as f.
func setAsideTornTail(f *os.File, path string, data []byte) ([]byte, string, error) {
	if len(data) == 0 || data[len(data)-1] == '\n' {
		return data, "", nil
	}
	start := bytes.LastIndexByte(data, '\n') + 1
	tail := data[start:]
	if len(bytes.TrimSpace(tail)) == 0 {
		return data, "", nil
	}
	if _, errs := st.Parse(tail); len(errs) == 0 {
		return data, "", nil
	}
	if _, errs := st.Parse(data[:start]); len(errs) > 0 {
		return data, "", nil // broken before its tail too: the writer refuses it whole
	}
	aside := strings.TrimSuffix(streamLockPath(path), ".lock") + ".quarantine"
	header, _ := json.Marshal(map[string]any{
		"quarantined_at": time.Now().UTC().Format(time.RFC3339Nano),
		"file":           path,
		"offset":         start,
		"bytes":          len(tail),
	})
	q, err := os.OpenFile(aside, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err == nil {
		if _, err = q.Write(append(append(append(header, '\n'), tail...), '\n')); err == nil {
			err = q.Sync()
		}
		if cerr := q.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return nil, "", fmt.Errorf("set the torn last line aside: %w", err)
	}
	if err := f.Truncate(int64(start)); err != nil {
		return nil, "", fmt.Errorf("cut the torn last line: %w", err)
	}
	line := bytes.Count(data[:start], []byte{'\n'}) + 1
	return data[:start], fmt.Sprintf("moved a torn last line (line %d, %d bytes, from an interrupted write) to %s", line, len(tail), aside), nil
}
