package ledgersync

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// apply appends to received/ the versions that the merge into merged
// brought (what merged holds that local does not) and that are the newest
// this clone knows of their record, so that the last line of each id in
// received/ is its newest version there, the order readers rely on.
// Versions older than one this clone has (by the version index, caught up
// to local, and by what this merge applied already) stay in the ledger
// only. It goes chunk by chunk, so a clone joining a large ledger holds
// one chunk at a time, and counts what came in r.received.
//
// The sizes of the received logs are written to the state before the
// first line is appended: if the process dies before the ledger ref moves,
// the next sync cuts them back (see loadState) and applies the merge again.
func (s *Syncer) apply(tx *jsonl.Tx, st *state, start, local, merged plumbing.Hash, r *round) error {
	idx := s.index()
	if err := idx.catchUp(s.ledger, local); err != nil {
		return ownDamage(err)
	}
	if local.IsZero() {
		// A clone joining: the index holds nothing, and asking it for
		// each chunk's ids was a failed open per bucket.
		idx = nil
	}
	scoped := &scopedApplied{}
	broken := map[string]*ruleCount{}
	batch := appendBatch{tx: tx, s: s}
	now := s.S.Now()
	appended := func() (*applied, error) {
		if err := batch.flushPending(); err != nil || st.Applying == nil {
			return newApplied(), err // nothing applied yet
		}
		return appliedSince(st.Applying.Received, func(file string) string { return store.ReceivedPath(s.S.WS, file) })
	}
	vetChunk := func(c ledger.Chunk) []vetted { return vet(c.File, c.Lines, now) }
	_, err := ledger.EachChangePrepared(s.ledger, local, merged, vetChunk, func(c ledger.Chunk, v []vetted) error {
		if err := scoped.enter(c, v, appended); err != nil {
			return err
		}
		file, lines := c.File, c.Lines
		fresh, err := pickNewest(idx, lines, v, scoped.applied, broken)
		if err != nil || len(fresh) == 0 {
			return err
		}
		if dir, ok := ledger.DirOf(file); ok && len(fresh) > presenceIn(fresh) {
			r.received[dir] += len(fresh) - presenceIn(fresh)
		}
		if st.Applying == nil {
			st.Applying = &applying{From: start.String(), To: local.String(), Received: map[string]int64{}}
			for _, l := range ledger.Logs {
				st.Applying.Received[l.File] = sizeOf(store.ReceivedPath(s.S.WS, l.File))
			}
			if err := st.save(s.dir()); err != nil {
				return err
			}
		}
		if file == records.ReservationsFile {
			arrivals, ahead := arrivalsOf(fresh, s.S.Now())
			if err := store.AddArrivals(store.ReceivedPath(s.S.WS, file), arrivals, s.S.Now()); err != nil {
				return err
			}
			r.future += len(arrivals)
			r.futureBy = max(r.futureBy, ahead)
			// Appended at once, after their arrivals: few, and read
			// together with them.
			return batch.add(file, fresh, true)
		}
		return batch.add(file, fresh, false)
	})
	if err == nil {
		err = batch.flushAll()
	}
	if err != nil {
		// The remote's part of merged passed Inspect: damage is this clone's.
		return ownDamage(err)
	}
	for _, note := range recordNotes(r.remote, r.fetched, broken, s.S.Now()) {
		st.noteSetAside(note)
		r.setAside = append(r.setAside, note)
	}
	return nil
}

// appendBatch gathers the versions apply appends to each received log
// and appends them in batches of up to appendBatchBytes: one append (one
// fsync) per ledger chunk made a clone joining a ledger of 100,000
// records spend most of its time waiting on 800 fsyncs. The batches keep
// each log's order; the lines are the chunks' own bytes, so the memory
// held is bounded by the batch size. The batches are not synced one by
// one: flushAll makes each log durable once, before the round moves the
// ledger ref (a process killed before that has its appends cut back by
// the state's applying intent, synced or not).
type appendBatch struct {
	tx      *jsonl.Tx
	s       *Syncer
	pending map[string][]any
	bytes   map[string]int
	// appended are the logs appended to, each with whether it was
	// created by the first append (its directory is synced too).
	appended map[string]bool
}

// appendBatchBytes bounds what apply holds before it appends.
const appendBatchBytes = 2 << 20

// add queues lines for file's received log, and appends what is queued
// when now is set or the batch is full.
func (b *appendBatch) add(file string, lines [][]byte, now bool) error {
	if b.pending == nil {
		b.pending, b.bytes = map[string][]any{}, map[string]int{}
	}
	for _, l := range lines {
		b.pending[file] = append(b.pending[file], l)
		b.bytes[file] += len(l) + 1
	}
	if now || b.bytes[file] >= appendBatchBytes {
		return b.flush(file)
	}
	return nil
}

func (b *appendBatch) flush(file string) error {
	lines := b.pending[file]
	if len(lines) == 0 {
		return nil
	}
	b.pending[file], b.bytes[file] = nil, 0
	log := b.s.S.ReceivedLog(file)
	if b.appended == nil {
		b.appended = map[string]bool{}
	}
	if _, ok := b.appended[file]; !ok {
		_, err := os.Stat(log.Path)
		b.appended[file] = errors.Is(err, os.ErrNotExist)
	}
	log.NoSync = true // flushAll syncs
	return b.tx.Append(log, lines...)
}

// flushPending appends what is left, log by log in the ledger's order.
func (b *appendBatch) flushPending() error {
	for _, l := range ledger.Logs {
		if err := b.flush(l.File); err != nil {
			return err
		}
	}
	for file := range b.pending {
		if err := b.flush(file); err != nil {
			return err
		}
	}
	return nil
}

// flushAll appends what is left and syncs every log appended to (unless
// the store does not sync).
func (b *appendBatch) flushAll() error {
	if err := b.flushPending(); err != nil {
		return err
	}
	if b.s.S.NoSync {
		return nil
	}
	for file, created := range b.appended {
		path := b.s.S.ReceivedLog(file).Path
		if err := syncPath(path); err != nil {
			return err
		}
		if created {
			if err := syncPath(filepath.Dir(path)); err != nil {
				return err
			}
		}
	}
	return nil
}

// syncPath fsyncs a file or a directory.
func syncPath(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("fsync %s: %w", path, err)
	}
	return nil
}

// newestOnly keeps, of the incoming versions of each record, the newest
// (records.Newer: the later version time, then the larger bytes), and only
// if it is not older than what the index (when there is one) and applied
// (what the caller applied before, when not nil; updated) know: a version
// whose time equals the newest known is kept, so that every clone holds
// both and readers pick the same one by its bytes. Versions that break a
// rule (brokenRule) are counted in broken (when not nil) and left out, as
// are lines that are not JSON objects; records without a time are kept.
func newestOnly(idx *versionIndex, file string, lines [][]byte, applied *applied, broken map[string]*ruleCount, now time.Time) ([][]byte, error) {
	return pickNewest(idx, lines, vet(file, lines, now), applied, broken)
}

// vetted is what newestOnly needs to know of one incoming line: the rule
// it breaks, if any, else its record id and version time (id is "" for a
// line that is not a version with a time).
type vetted struct {
	rule, msg, id string
	at            time.Time
	split         ulidID
}

// vet reads each line once for newestOnly: the part of its work that
// depends on nothing but the lines, which a caller may run on several
// chunks at once (see ledger.EachChangePrepared).
func vet(file string, lines [][]byte, now time.Time) []vetted {
	out := make([]vetted, len(lines))
	versions := newVersionReader()
	for i, line := range lines {
		// brokenRule's check, which also reads the id and time of most
		// versions (those with an updated_at).
		id, at, e := records.CheckVersionAt(file, line, now)
		if e != nil {
			out[i] = vetted{rule: e.Rule, msg: e.Msg}
			continue
		}
		ok := !at.IsZero()
		if !ok {
			id, at, ok = versions.of(line)
		}
		if ok {
			out[i] = vetted{id: id, at: at, split: splitID(id)}
		}
	}
	return out
}

// pickNewest is newestOnly for lines vet has read. Version times compare
// as their records.TimeKey would: exactly, to the nanosecond.
func pickNewest(idx *versionIndex, lines [][]byte, v []vetted, applied *applied, broken map[string]*ruleCount) ([][]byte, error) {
	byID := map[string]int{} // the line of each id's newest version here
	var ids []string
	for i, line := range lines {
		if v[i].rule != "" {
			if broken != nil {
				c := broken[v[i].rule]
				if c == nil {
					c = &ruleCount{msg: v[i].msg, example: exampleOf(line)}
					broken[v[i].rule] = c
				}
				c.n++
			}
			continue
		}
		id := v[i].id
		if id == "" {
			continue
		}
		b, seen := byID[id]
		if !seen {
			ids = append(ids, id)
		}
		if !seen || v[i].at.After(v[b].at) || v[i].at.Equal(v[b].at) && bytes.Compare(line, lines[b]) > 0 {
			byID[id] = i
		}
	}
	known := map[string]string{}
	if idx != nil {
		var err error
		if known, err = idx.newest(ids); err != nil {
			return nil, err
		}
	}
	var out [][]byte
	for i, line := range lines {
		if v[i].rule != "" {
			continue
		}
		id := v[i].id
		if id == "" {
			out = append(out, line) // a record without a time: kept
			continue
		}
		if byID[id] != i || known[id] != "" && records.TimeKey(v[i].at) < known[id] {
			continue
		}
		at := stampOf(v[i].at)
		if applied != nil {
			if had, ok := applied.at(id, v[i].split); ok && at.before(had) {
				continue
			}
			applied.set(id, v[i].split, at)
		}
		out = append(out, line)
	}
	return out, nil
}

// exampleOf names a line in a note: its id, or its first bytes.
func exampleOf(line []byte) string {
	keys := []string{jsonline.DefaultKey}
	vals := make([][]byte, 1)
	if jsonline.ObjectFields(line, keys, vals) == nil {
		if id, ok := jsonline.String(vals[0]); ok && len(id) <= 100 {
			return "id " + strconv.Quote(id)
		}
	}
	if len(line) > 40 {
		line = line[:40]
	}
	return "a line starting " + strconv.Quote(string(line))
}

func sizeOf(path string) int64 {
	info, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return info.Size()
}
