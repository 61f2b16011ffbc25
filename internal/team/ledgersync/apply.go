package ledgersync

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"strconv"
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/gitrepo/object"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// apply appends to received/ the versions that the merge into merged
// brought (what merged holds that local does not) and that are the newest
// this clone knows of their record, so that the last line of each id in
// received/ is its newest version there, the order readers rely on.
// Versions older than one this clone has (in its logs' indexes, as local
// left them, and in what this merge applied already), or of the same time
// and not larger bytes (the same version, which a ledger may carry twice;
// see ties), stay in the ledger only. It goes chunk by chunk, so a clone
// joining a large ledger holds one chunk at a time, and counts what came
// in r.received.
//
// The sizes of the received logs are written to the state before the
// first line is appended: if the process dies before the ledger ref moves,
// the next sync cuts them back (see loadState) and applies the merge again.
func (s *Syncer) apply(tx *jsonl.Tx, st *state, start, local, merged object.ID, r *round) error {
	removeOldVersionIndex(s.dir())
	// A record this clone held no version of is judged by what this
	// merge applies first (a clone joining holds none); first notes it.
	first := &firsts{}
	counts, future, futureBy := maps.Clone(r.received), r.future, r.futureBy
	broken, err := s.applyOnce(tx, st, start, local, merged, r, first)
	if err == nil && len(first.contested) > 0 {
		var again bool
		if again, err = judgeFirsts(s.ledger, s.S.Now(), first, merged); again && err == nil && st.Applying != nil {
			// What this merge took as some record's first version is
			// not what the ledger brought first: its appends are cut
			// back, and it runs again knowing which is.
			for file, size := range st.Applying.Received {
				if err := truncateTo(store.ReceivedPath(s.S.WS, file), size); err != nil {
					return err
				}
			}
			r.received, r.future, r.futureBy = counts, future, futureBy
			broken, err = s.applyOnce(tx, st, start, local, merged, r, first)
		}
	}
	if err != nil {
		return err
	}
	for _, note := range recordNotes(r.remote, r.fetched, broken, s.S.Now()) {
		r.noteSetAside(st, note)
	}
	return nil
}

// vetChunk is what a merge reads of each chunk (on every core, ahead).
func vetChunk(now time.Time) func(c ledger.Chunk) vetting {
	return func(c ledger.Chunk) vetting { return vetData(c.File, c.Data, now) }
}

// applyOnce is apply's one pass over what merged brings, judging rule
// parties by first (when not nil): it returns what broke a rule.
func (s *Syncer) applyOnce(tx *jsonl.Tx, st *state, start, local, merged object.ID, r *round, first *firsts) (map[string]*ruleCount, error) {
	var known *knownVersions
	if !local.IsZero() {
		// A clone joining holds nothing yet: nothing to ask.
		known = newKnownVersions(tx, s.S)
		defer known.close()
	}
	scoped := &scopedApplied{}
	broken := map[string]*ruleCount{}
	batch := &appendBatch{tx: tx, s: s, appenders: map[string]*jsonl.Appender{}, lines: map[string]*mergeLines{}}
	appended := func() (*applied, error) {
		if st.Applying == nil {
			return newApplied(), nil // nothing applied yet
		}
		return appliedSince(st.Applying.Received, func(file string) string { return store.ReceivedPath(s.S.WS, file) })
	}
	collected := func() {}
	if local.IsZero() {
		// A clone joining takes the whole ledger in one merge; a sync
		// in an MCP server merges a few records beside other calls.
		collected = collectLess()
	}
	defer collected()
	_, err := ledger.EachChangeRead(s.ledger, local, merged, vetChunk(s.S.Now()), func(c ledger.Chunk, v vetting) error {
		if err := scoped.enter(c, v, appended); err != nil {
			return err
		}
		if scoped.whole {
			collected() // what it holds now grows with the ledger
		}
		file := c.File
		var newest newestOf
		tie := &ties{file: file, first: first, applied: func(id string, at time.Time, line []byte) (bool, error) {
			if st.Applying == nil {
				return false, nil // nothing applied yet
			}
			return batch.applied(file, st.Applying.Received[file], id, at, line)
		}}
		if known != nil {
			newest = func(ids []string) (map[string]time.Time, error) { return known.newest(file, ids) }
			tie.held = func(id string, at time.Time, line []byte) (bool, error) { return known.holds(file, id, at, line), nil }
			tie.parties = func(id string, line []byte) bool { return known.sameParties(file, id, line) }
		}
		keep, err := pickFresh(newest, tie, v, scoped.applied, broken)
		if err != nil || len(keep) == 0 {
			return err
		}
		fresh, known, times := make([][]byte, len(keep)), make([]jsonl.Known, len(keep)), make([]time.Time, len(keep))
		presence := 0
		for i, k := range keep {
			x := &v.valid[k]
			fresh[i], known[i], times[i] = x.line, jsonl.Known{ID: x.id, At: x.at}, x.at
			if x.presence {
				presence++
			}
		}
		// Presence records travel like any record, and stay out of the
		// counts: "received 1 message" means one a droid wrote.
		if dir, ok := ledger.DirOf(file); ok && len(fresh) > presence {
			r.received[dir] += len(fresh) - presence
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
		// Their arrivals first: a reader that sees a version sees its
		// bound.
		arrivals, ahead := arrivalsOf(fresh, times, s.S.Now())
		if err := store.AddArrivals(store.ReceivedPath(s.S.WS, file), arrivals, s.S.Now()); err != nil {
			return err
		}
		if file == records.ReservationsFile {
			r.future += len(arrivals)
			r.futureBy = max(r.futureBy, ahead)
		}
		return batch.add(file, fresh, known)
	})
	if err = batch.close(err); err != nil {
		// The remote's part of merged passed Inspect: damage is this clone's.
		return nil, ownDamage(err)
	}
	return broken, nil
}

// appendBatch appends the versions apply takes to each received log
// through one jsonl.Appender a log, held for the whole merge: the lines
// are written as they come (a batch a chunk, the chunks' own bytes, so
// the memory held is bounded by a chunk), the log's index is handed the
// ids and times vet read (not read again from the lines), and each log is
// made durable and its index brought up to date once, by close, before
// the round moves the ledger ref (a process killed before that has its
// appends cut back by the state's applying intent, synced or not). One
// append and one fsync per chunk made a clone joining a ledger of 100,000
// records spend most of its time waiting on 800 fsyncs.
type appendBatch struct {
	tx        *jsonl.Tx
	s         *Syncer
	appenders map[string]*jsonl.Appender
	// lines places what the merge appended to each log, once an equal
	// time asked (see ties).
	lines map[string]*mergeLines
}

// applied is ties.applied for file's received log, to which the merge
// began appending at offset from.
func (b *appendBatch) applied(file string, from int64, id string, at time.Time, line []byte) (bool, error) {
	m := b.lines[file]
	if m == nil {
		if b.appenders[file] == nil {
			return false, nil // nothing appended to it in this merge
		}
		var err error
		if m, err = readMergeLines(store.ReceivedPath(b.s.S.WS, file), from); err != nil {
			return false, err
		}
		b.lines[file] = m
	}
	return m.holds(id, at, line), nil
}

// add appends lines, whose records known describes, to file's received
// log.
func (b *appendBatch) add(file string, lines [][]byte, known []jsonl.Known) error {
	a := b.appenders[file]
	if a == nil {
		var err error
		if a, err = b.tx.Appender(b.s.S.ReceivedLog(file)); err != nil {
			return err
		}
		b.appenders[file] = a
	}
	if err := a.Append(lines, known); err != nil {
		return err
	}
	if m := b.lines[file]; m != nil {
		for i, line := range lines {
			m.add(line, known[i].ID)
		}
	}
	return nil
}

// close syncs every log appended to and updates its index; after an
// error it only closes them.
func (b *appendBatch) close(failed error) error {
	errs := []error{failed}
	for file, a := range b.appenders {
		err := a.Close()
		if failed == nil && err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", file, err))
		}
	}
	b.appenders = nil
	for _, m := range b.lines {
		m.close()
	}
	b.lines = nil
	return errors.Join(errs...)
}

// newestOf answers, for ids, when the newest version of each that this
// clone holds was written (an id it holds no version of with a time is
// left out).
type newestOf func(ids []string) (map[string]time.Time, error)

// pickNewest keeps, of the versions v holds of each record, the newest
// (records.Newer: the later version time, then the larger bytes), and only
// if it is not older than what applied (what the caller applied before,
// when not nil; updated) knows. Versions that break a rule are counted in
// broken (when not nil) and left out, as are lines that are not JSON
// objects; records without a time are kept.
func pickNewest(v vetting, applied *applied, broken map[string]*ruleCount) ([][]byte, error) {
	keep, err := pickFresh(nil, nil, v, applied, broken)
	var out [][]byte
	for _, i := range keep {
		out = append(out, v.valid[i].line)
	}
	return out, err
}

// pickFresh is pickNewest that returns which of v's valid lines it keeps,
// by their place in v.valid. Version times compare exactly, to the
// nanosecond. Given tie (not nil), a version whose time equals the newest
// held (in a log, or applied before) is kept only when its bytes are
// larger than that one's: the same version carried twice by the ledger is
// applied once.
func pickFresh(newest newestOf, tie *ties, v vetting, applied *applied, broken map[string]*ruleCount) ([]int, error) {
	v.countBroken(broken)
	var known map[string]time.Time
	if newest != nil {
		var ids []string // of the records whose newest version here newest is asked about
		for i := range v.valid {
			if v.valid[i].top {
				ids = append(ids, v.valid[i].id)
			}
		}
		var err error
		if known, err = newest(ids); err != nil {
			return nil, err
		}
	}
	out := make([]int, 0, len(v.valid))
	for i := range v.valid {
		x := &v.valid[i]
		id := x.id
		if id == "" {
			out = append(out, i) // a record without a time: kept
			continue
		}
		if !x.top {
			continue
		}
		if had, ok := known[id]; ok {
			if x.at.Before(had) {
				continue
			}
			if tie != nil && tie.held != nil && x.at.Equal(had) {
				held, err := tie.held(id, x.at, x.line)
				if err != nil {
					return nil, err
				}
				if held {
					continue
				}
			}
			if tie != nil && tie.parties != nil && !tie.parties(id, x.line) {
				brokeParties(broken, id, x.line)
				continue
			}
		}
		at := stampOf(x.at)
		at.parties = x.parties
		if applied != nil {
			had, ok := applied.at(id, x.split)
			first := tie.firstOf(id, applied.partiesOf(id, had, ok))
			if ok {
				if at.before(had) {
					tie.contest(id, first, at.parties)
					continue
				}
				if tie != nil && tie.applied != nil && !had.before(at) {
					held, err := tie.applied(id, x.at, x.line)
					if err != nil {
						return nil, err
					}
					if held {
						tie.contest(id, first, at.parties)
						continue
					}
				}
			}
			// A later version of a record this merge applied, of
			// which this clone held none before.
			if first != at.parties && first != 0 && at.parties != 0 || tie.undecided(id) {
				tie.contest(id, first, at.parties)
				brokeParties(broken, id, x.line)
				continue
			}
			applied.set(id, x.split, at)
		}
		out = append(out, i)
	}
	return out, nil
}

// brokeParties counts in broken a version of id that names other
// parties than the version this clone holds or this merge applied.
func brokeParties(broken map[string]*ruleCount, id string, line []byte) {
	if broken == nil {
		return
	}
	c := broken[records.RuleParties]
	if c == nil {
		c = &ruleCount{example: exampleOf(line),
			msg: fmt.Sprintf("a version of %s gives it another holder, pattern, issue, sender or recipient than an earlier version of it", id)}
		broken[records.RuleParties] = c
	}
	c.n++
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
