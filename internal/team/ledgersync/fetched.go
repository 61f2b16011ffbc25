package ledgersync

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/gitrepo/object"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/storage/store"
	"github.com/git-queen/git-queen/internal/storage/workspace"
)

// Fetched returns the store.Store.Fetched of a live store: for the
// reservations log, a file holding the reservation versions a `git fetch`
// brought into a remote's tracking ledger since this clone last merged it.
// So a clone sees another's new reservations, in every check and in the
// pre-commit hook, as soon as git fetched them, without the network and
// before the next sync applies them. The file is derived from the two
// ledger commits and kept in the cache directory, so it is computed once
// per fetch; when no remote moved since the last sync, the cost is a
// directory listing and a small file read.
//
// A tracking ledger that is damaged or over the bound one sync takes, or
// that cannot be read for any other reason, adds nothing and is no error:
// a command or a commit goes on from what the live store holds (the next
// sync sets the commit aside and says so, and doctor names it). now is the
// clock reservations from the future are bounded by.
func Fetched(ws *workspace.Workspace, now func() time.Time) func(name string) ([]string, error) {
	return func(name string) ([]string, error) {
		if name != records.ReservationsFile || !ws.Live || ws.Repo == nil {
			return nil, nil
		}
		tracking, err := ledger.TrackingRefs(ws.Repo.CommonDir)
		if err != nil || len(tracking) == 0 {
			return nil, nil
		}
		st, err := loadState(ws.Dir)
		if err != nil {
			return nil, nil
		}
		var paths []string
		var l *ledger.Ledger
		defer func() {
			if l != nil {
				l.Close()
			}
		}()
		for remote, fetched := range tracking {
			if rs := st.Remotes[remote]; rs != nil && (rs.Merged == fetched.String() || rs.Pushed == fetched.String()) ||
				st.Recording != nil && st.Recording.Remote == remote && st.Recording.Merged == fetched.String() {
				continue
			}
			if l == nil {
				if l, err = ledger.Open(ws.Repo.CommonDir); err != nil {
					return nil, nil
				}
			}
			local, err := l.Refs().Read(ledger.Ref)
			if err != nil {
				local = object.ZeroID
			}
			local = st.applied(local) // received/ may lack what a fetch by hand wrote there
			if path, ok := extract(l, ws, local, fetched, maxReceive(ws.Repo), now()); ok {
				paths = append(paths, path)
			}
		}
		return paths, nil
	}
}

// extractPrefix names this release's extractions. An earlier release
// extracts into the same cache directory (its hook, or a second binary on
// the PATH), setting aside versions it does not know, such as places in
// the queue, or refusing a whole ledger whose tip is damaged (salvaged);
// its files are named "fetched-...", "fetched2-...", before rule parties
// "fetched3-...", or, before it judged parties by the ledger's history
// (sameAsFirst), "fetched4-...", and are never read here.
const extractPrefix = "fetched5-"

// extract writes (once) the reservation versions fetched holds that local
// does not, the newest of each id within every rule, and returns the file's
// path; ok is false when fetched is damaged or over limit (noted once, in
// a file beside, so that the next command does not inspect it again), or
// when it cannot be read.
func extract(l *ledger.Ledger, ws *workspace.Workspace, local, fetched object.ID, limit int64, now time.Time) (string, bool) {
	cacheDir := ws.CacheDir()
	path := filepath.Join(cacheDir, extractPrefix+fetched.String()[:16]+"-"+local.String()[:16]+".jsonl")
	if _, err := os.Stat(path); err == nil {
		return path, true
	}
	refused := path + ".refused"
	if _, err := os.Stat(refused); err == nil {
		return "", false
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return "", false
	}
	lines, err := salvaged(l, ws, local, fetched, limit, now)
	if ledger.IsDamage(err) {
		_ = jsonl.WriteCacheFile(refused, []byte(err.Error()+"\n"))
	}
	if err != nil {
		return "", false
	}
	var data []byte
	for _, line := range lines {
		data = append(append(data, line...), '\n')
	}
	arrivals, _ := arrivalsOf(lines, nil, now)
	if store.AddArrivals(path, arrivals, now) != nil {
		return "", false
	}
	pruneCache(cacheDir)
	return path, jsonl.WriteCacheFile(path, data) == nil
}

// sameParties drops from v, fetched reservation versions, those that give
// a reservation this clone holds another holder or pattern
// (records.SameParties): what a sync sets aside. It goes before rule
// parties is judged by history (sameAsFirst), which so judges only the
// records this clone holds none of, as a sync does: judged undecided
// beside carl's version, ann's release of the reservation held here was
// hidden until the next sync.
func sameParties(ws *workspace.Workspace, v *vetting) {
	file := records.ReservationsFile
	held := map[string][][]byte{} // by id, the versions the logs place
	v.valid = slices.DeleteFunc(v.valid, func(x vetted) bool {
		h, ok := held[x.id]
		for _, path := range []string{ws.Path(file), store.ReceivedPath(ws, file)} {
			if ok || x.id == "" {
				break
			}
			if e, found, err := jsonl.GetFile(path, ws.CacheDir(), x.id, jsonl.Query{Versions: records.Versions}); err == nil && found {
				h = append(h, e.Raw)
			}
		}
		held[x.id] = h
		return slices.ContainsFunc(h, func(raw []byte) bool { return !records.SameParties(file, raw, x.line) })
	})
}

// salvaged is what extract reads of a fetched ledger, as a sync would
// merge it (Syncer.usable): the reservation versions the fetched commit
// brings when it passes Inspect and brings no flood; else those of the
// nearest of its ancestors that pass; of a reservation ws holds, those
// that name its parties (sameParties). A damaged commit pushed on an
// honest ledger (or one of a newer format, or a flood) hid every
// reservation the fetch brought from check and the hooks, while sync kept
// them. The damage of fetched is the error when no ancestor passes, and a
// commit over limit refuses the whole (a sync stops there too).
func salvaged(l *ledger.Ledger, ws *workspace.Workspace, local, fetched object.ID, limit int64, now time.Time) ([][]byte, error) {
	var all vetting
	var damage error
	took := false
	err := walkToPassing(l, fetched, limit, func(c object.ID) (func(), bool, error) {
		n, err := l.InspectWithin(local, c, limit)
		if err == nil && n > limit {
			return nil, true, overBound(c, n, limit)
		}
		var added vetting
		if err == nil {
			added, err = fetchedVersions(l, local, c, now)
		}
		if err == nil {
			return func() { all.valid, took = append(all.valid, added.valid...), true }, false, nil
		}
		if c == fetched {
			damage = err
		}
		return nil, false, err
	})
	if err != nil {
		return nil, err
	}
	if !took {
		return nil, damage
	}
	sameParties(ws, &all)
	return unflooded(all, l, fetched, now) // of every commit's versions, not each one's own
}

// fetchedVersions are the valid reservation versions commit holds that
// local does not, or the damage of a flood (see floodCheck). Each chunk
// is vetted by the walk's readers (vetData copies the valid lines out of
// a chunk of mostly invalid ones): what a hostile push of tiny invalid
// lines leaves to hold is their count.
func fetchedVersions(l *ledger.Ledger, local, commit object.ID, now time.Time) (vetting, error) {
	var added vetting
	vetChunk := func(c ledger.Chunk) vetting { return vetData(records.ReservationsFile, c.Data, now) }
	if err := ledger.EachChangeOf(l, records.ReservationsFile, local, commit, vetChunk, func(_ ledger.Chunk, v vetting) error {
		added.valid = append(added.valid, v.valid...)
		return nil
	}); err != nil {
		return added, err
	}
	_, err := unflooded(added, nil, commit, now)
	return added, err
}

// unflooded is the newest version of each record among v's valid lines
// (their top ones, marked again), or the damage of lines that make more
// reservations active, or more places in the queue, than a sync takes
// (floodBound.limit; the next sync sets such a commit aside: floodCheck).
// Rule parties is judged by l's history up to commit, when l is not nil
// (see sameAsFirst).
func unflooded(v vetting, l *ledger.Ledger, commit object.ID, now time.Time) ([][]byte, error) {
	v.valid = slices.Clone(v.valid) // the caller's stays whole
	sameAsFirst(&v, l, commit, now)
	v.markTop()
	lines, err := pickNewest(v, nil, nil)
	if err != nil {
		return lines, err
	}
	count := newLiveCount(reservationFlood.live, reservationFlood.file, [2]map[string]stamp{}, now)
	count.add(slices.Values(lines))
	for i, what := range []string{"active reservations", "places in the queue"} {
		if count.n[i] > reservationFlood.limit() {
			return lines, &ledger.DamageError{Commit: commit, Object: commit, Reason: fmt.Sprintf("%d %s", count.n[i], what)}
		}
	}
	return lines, nil
}

// sameAsFirst leaves out of v the versions that name other parties than
// the first version of their record in v (rule parties): a fetch can
// bring a record's first version and a hostile later one together. Given
// l, a record whose versions name other parties is judged as a sync
// judges it (judgeFirsts: by the version tip's history brought first, or
// none when it cannot say), at the cost of a walk of the history only
// then; else, or when that history cannot be read, the first is the
// oldest, which a pusher may date or place before ann's.
func sameAsFirst(v *vetting, l *ledger.Ledger, tip object.ID, now time.Time) {
	first, contested := map[string]vetted{}, map[string]uint32{}
	for _, x := range v.valid {
		if f, ok := first[x.id]; x.id != "" && (!ok || x.at.Before(f.at)) {
			first[x.id] = x
		}
	}
	for _, x := range v.valid {
		if x.id != "" && x.parties != first[x.id].parties {
			contested[x.id] = first[x.id].parties
		}
	}
	tie := &ties{}
	if f := (&firsts{contested: contested, logs: map[string]bool{records.ReservationsFile: true}}); l != nil && len(contested) > 0 {
		if _, err := judgeFirsts(l, now, f, tip); err == nil {
			tie.first = f
		}
	}
	v.valid = slices.DeleteFunc(v.valid, func(x vetted) bool {
		return x.id != "" && (tie.undecided(x.id) || x.parties != tie.firstOf(x.id, first[x.id].parties))
	})
}

// cacheMaxAge is how long cache files live unmodified.
const cacheMaxAge = 7 * 24 * time.Hour

// pruneCache removes cache files nobody wrote for a week: extractions of
// ledgers long merged, and selection caches of files gone.
func pruneCache(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		info, err := e.Info()
		if err == nil && !e.IsDir() && time.Since(info.ModTime()) > cacheMaxAge {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// PublishedOffset is how much of this clone's log file the remote is known
// to hold: versions written at or after it are not published there yet
// (zero when this clone never synced with it).
func PublishedOffset(ws *workspace.Workspace, remote, file string) int64 {
	if st, err := loadState(ws.Dir); err == nil && st.Remotes[remote] != nil {
		return st.Remotes[remote].Published[file].Size
	}
	return 0
}

// Status says when this clone last synced with remote (zero if never) and
// how many record versions it wrote that the remote does not hold yet.
func Status(ws *workspace.Workspace, remote string) (syncedAt time.Time, unpublished int) {
	st, err := loadState(ws.Dir)
	if err != nil {
		return time.Time{}, 0
	}
	var published map[string]Mark
	if rs := st.Remotes[remote]; rs != nil {
		syncedAt, published = rs.SyncedAt, rs.Published
	}
	for _, l := range ledger.Logs {
		// Past the mark the remote holds (all of a log rewritten since).
		if data, _, err := readTailOf(filepath.Join(ws.Dir, l.File), published[l.File]); err == nil {
			unpublished += countRecords(data)
		}
	}
	return syncedAt, unpublished
}
