package ledgersync

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/git-queen/git-queen/internal/base/crc32c"
	"github.com/git-queen/git-queen/internal/gitrepo/object"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// stateFile records, in the live store, how the logs and the ledger
// relate. Every change to it happens under the repository lock and is
// written atomically (rename), so a killed process leaves the old state or
// the new. It is not synced to disk, as git does not sync its refs: it is
// bookkeeping, and a power cut that loses its last version costs a
// record written to the ledger twice, never a record lost.
const stateFile = "ledger-state.json"

// markWindow is how many bytes before a mark its checksum covers: enough to
// notice a log rewritten under the mark (a compaction by an older
// git-queen, an edit by hand), at a cost that does not grow with the log.
const markWindow = 4096

// Mark is a place in a log: the first Size bytes, which end in a newline,
// and the checksum of the window before Size that proves the log still
// starts with what was there.
type Mark struct {
	Size int64  `json:"size"`
	Tail uint32 `json:"tail_crc32c"`
}

// state is the content of stateFile.
type state struct {
	V int `json:"v"`
	// Recorded says how much of each log this clone wrote the ledger
	// holds, by log file name.
	Recorded map[string]Mark `json:"recorded,omitempty"`
	// Recording is a ledger commit that holds the logs up to its marks,
	// written before the ledger ref moves to it and cleared after: if the
	// ref points at it, its marks are the recorded ones.
	Recording *recording `json:"recording,omitempty"`
	// Applying is an application of another clone's records to received/,
	// written before the first line is appended and cleared once the
	// ledger ref has moved: a crash in between is undone.
	Applying *applying `json:"applying,omitempty"`
	// Remotes holds what is known of each remote's ledger.
	Remotes map[string]*remoteState `json:"remotes,omitempty"`
	// SetAside notes what remotes' ledgers held that this clone did not
	// take, the latest last (at most maxSetAside).
	SetAside []SetAside `json:"set_aside,omitempty"`
	// Verified is a local ledger commit read whole and found sound: the
	// ledger ref moves only to commits built on it, so a sync checks the
	// ref again only when it names another (moved by hand, or by an
	// older git-queen).
	Verified string `json:"verified,omitempty"`
	// CloneID names this clone in the ledger commits it writes
	// (git-queen+ID@host), so that others can read its clock.
	CloneID string `json:"clone_id,omitempty"`
	// ClockEdges are what the ledger's commits showed of clones' clocks
	// (see readClocks), and Writers the droid that signed each clone's
	// latest commit read.
	ClockEdges []clockEdge       `json:"clock_edges,omitempty"`
	Writers    map[string]string `json:"writers,omitempty"`
	// changed says that a round changed the state beyond its marks (a
	// note), so that it is saved even when the ledger did not move.
	changed bool
}

// fresh reports whether this clone has never synced: no ledger it
// verified, recorded to or merged into, so its received/ holds nothing of
// any ledger. A sync that met no ledger either side (the first clone of a
// team to join) merged and pushed the zero hash: nothing.
func (s *state) fresh() bool {
	for _, r := range s.Remotes {
		if !noCommit(r.Merged) || !noCommit(r.Pushed) {
			return false
		}
	}
	return s.Verified == "" && len(s.Recorded) == 0 && s.Recording == nil && s.Applying == nil
}

// noCommit says whether h, as the state holds a commit, names none.
func noCommit(h string) bool { return h == "" || h == object.ZeroID.String() }

// applied is the local ledger commit whose records received/ holds, given
// the ledger ref's commit ref: ref itself, unless it was moved outside
// git-queen (a fetch of every ref by hand), when it is the one a sync
// verified last (the zero hash when this clone never synced), which the
// next sync merges ref into. A state that verified nothing (an older
// git-queen's) trusts ref, as a sync does.
func (s *state) applied(ref object.ID) object.ID {
	if s.Recording != nil && s.Recording.Commit == ref.String() {
		return ref
	}
	if v, ok := object.ParseHex(s.Verified); ok {
		return v
	}
	if s.fresh() {
		return object.ZeroID
	}
	return ref
}

// adopt takes a recording the ledger ref reached as the state. Its commit
// was built on a sound ledger (or a rebuilt one), and is the one the next
// round finds the ref at: verified.
func (s *state) adopt() {
	r := s.Recording
	if r == nil {
		return
	}
	s.Verified = r.Commit
	s.Recorded = r.Recorded
	if r.Remote != "" && r.Merged != "" {
		s.remote(r.Remote).Merged = r.Merged
	}
	s.Recording = nil
}

type recording struct {
	Commit   string          `json:"commit"`
	Recorded map[string]Mark `json:"recorded"`
	// Remote and Merged say which remote's ledger the commit merged, if any.
	Remote string `json:"remote,omitempty"`
	Merged string `json:"merged,omitempty"`
}

type applying struct {
	// From is the ledger commit before the merge, To the one after.
	From string `json:"from"`
	To   string `json:"to"`
	// Received are the received logs' sizes before anything was appended.
	Received map[string]int64 `json:"received"`
}

// remoteState is what this clone knows of a remote's ledger.
type remoteState struct {
	// Merged is the remote ledger commit last merged into the local one.
	Merged string `json:"merged,omitempty"`
	// Pushed is the commit last pushed there, and Published the marks of
	// the logs it holds: records past them are not on the remote yet.
	Pushed    string          `json:"pushed,omitempty"`
	Published map[string]Mark `json:"published,omitempty"`
	// SyncedAt is when a sync with the remote last completed.
	SyncedAt time.Time `json:"synced_at,omitzero"`
}

func (s *state) remote(name string) *remoteState {
	if s.Remotes == nil {
		s.Remotes = map[string]*remoteState{}
	}
	r := s.Remotes[name]
	if r == nil {
		r = &remoteState{}
		s.Remotes[name] = r
	}
	return r
}

func loadState(dir string) (*state, error) {
	data, err := os.ReadFile(filepath.Join(dir, stateFile))
	if errors.Is(err, os.ErrNotExist) {
		return &state{V: 1}, nil
	}
	if err != nil {
		return nil, err
	}
	var s state
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s is damaged (%v); move it away and git-queen records the logs again from the ledger", filepath.Join(dir, stateFile), err)
	}
	if s.V != 1 {
		return nil, fmt.Errorf("%s has version %d, which this git-queen does not know; upgrade git-queen", filepath.Join(dir, stateFile), s.V)
	}
	return &s, nil
}

func (s *state) save(dir string) error { return writeJSON(dir, stateFile, s) }

// writeJSON writes v, indented, to dir/name through a rename.
func writeJSON(dir, name string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return jsonl.WriteCacheFile(filepath.Join(dir, name), append(data, '\n'))
}

// markAt is the mark at size in the file f.
func markAt(f *os.File, size int64) (Mark, error) {
	start := max(size-markWindow, 0)
	buf := make([]byte, size-start)
	if _, err := f.ReadAt(buf, start); err != nil && !errors.Is(err, io.EOF) {
		return Mark{}, err
	}
	return Mark{Size: size, Tail: crc32c.Checksum(buf)}, nil
}

// holds reports whether the file f still starts with what was there when
// m was taken (as far as the window before the mark shows).
func (m Mark) holds(f *os.File, fileSize int64) bool {
	if m.Size == 0 {
		return true
	}
	if fileSize < m.Size {
		return false
	}
	again, err := markAt(f, m.Size)
	return err == nil && again == m
}
