package roster

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/store"
	"github.com/git-queen/git-queen/internal/storage/workspace"
)

var foldT0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// foldStore is a live store in a plain directory: its own logs and
// received ones, two sources of each kind.
func foldStore(t *testing.T) *Store {
	t.Helper()
	return &Store{S: &store.Store{WS: &workspace.Workspace{Dir: t.TempDir(), Live: true}, NoSync: true}}
}

// addLines appends raw lines to a log file as a writer (or sync) would.
func addLines(t *testing.T, path string, lines ...string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, l := range lines {
		if _, err := f.WriteString(l + "\n"); err != nil {
			t.Fatal(err)
		}
	}
}

// oracleSeen is what List must say of each droid at now, found the long
// way: every line of every source, every field, no cache.
func oracleSeen(t *testing.T, s *Store, now time.Time) map[string][2]*time.Time {
	t.Helper()
	out := map[string][2]*time.Time{}
	name := func(raw json.RawMessage) string {
		var n string
		if json.Unmarshal(raw, &n) != nil || records.ValidateDroid(n) != nil {
			return ""
		}
		if _, ok := out[n]; !ok {
			out[n] = [2]*time.Time{}
		}
		return n
	}
	see := func(n string, t time.Time, first bool) {
		t, ok := Believed(t, now)
		if n == "" || !ok {
			return
		}
		v := out[n]
		if first && (v[0] == nil || t.Before(*v[0])) {
			v[0] = &t
		}
		if v[1] == nil || t.After(*v[1]) {
			v[1] = &t
		}
		out[n] = v
	}
	for _, k := range records.Kinds {
		for _, path := range []string{s.S.Log(k.File).Path, store.ReceivedPath(s.S.WS, k.File)} {
			data, err := os.ReadFile(path)
			if os.IsNotExist(err) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			for line := range strings.Lines(string(data)) {
				var rec map[string]json.RawMessage
				if json.Unmarshal([]byte(line), &rec) != nil {
					continue
				}
				if _, ok := rec["id"]; !ok {
					continue
				}
				for _, f := range k.DroidFields {
					name(rec[f])
				}
				created, ok := records.ParseTime(rec["created_at"])
				if !ok {
					continue
				}
				creator := name(rec[writerFields[k.File]])
				see(creator, created, true)
				written := created
				if u, ok := records.ParseTime(rec["updated_at"]); ok && u.After(created) {
					written = u
				}
				var w string
				_ = json.Unmarshal(rec["updated_by"], &w)
				if w == "" {
					see(creator, written, false)
				} else {
					see(name(rec["updated_by"]), written, false)
				}
			}
		}
	}
	return out
}

// checkList fails unless List at now says what the oracle says.
func checkList(t *testing.T, s *Store, now time.Time, step string) []Droid {
	t.Helper()
	list, err := s.List(now, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := oracleSeen(t, s, now)
	got := map[string][2]*time.Time{}
	for _, d := range list {
		got[d.Name] = [2]*time.Time{d.First, d.Last}
	}
	same := func(a, b *time.Time) bool { return (a == nil) == (b == nil) && (a == nil || a.Equal(*b)) }
	for n, w := range want {
		g, ok := got[n]
		if !ok || !same(g[0], w[0]) || !same(g[1], w[1]) {
			t.Fatalf("%s: %s first/last %v %v; want %v %v", step, n, g[0], g[1], w[0], w[1])
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d droids listed, want %d", step, len(got), len(want))
	}
	return list
}

var foldNames = []string{"ann", "bob", "carl", "dora", `d\u006fra`, "eve", "@nope", "", "a b", "fay"}

// randomLine is a version of one of a few ids of kind k: creators,
// writers and recipients among valid and invalid names, times past,
// near, a little ahead, far ahead, and unreadable.
func randomLine(r *rand.Rand, k records.Kind, base time.Time) string {
	pick := func() string { return foldNames[r.IntN(len(foldNames))] }
	when := func() string {
		switch r.IntN(12) {
		case 0:
			return `"2099-01-01T00:00:00Z"`
		case 1:
			return `"not a time"`
		case 2:
			return `12`
		case 3:
			return fmt.Sprintf("%q", base.Add(time.Duration(r.IntN(240))*time.Minute).Format(time.RFC3339Nano))
		}
		return fmt.Sprintf("%q", base.Add(-time.Duration(r.IntN(10_000))*time.Minute).Format(time.RFC3339Nano))
	}
	fields := []string{fmt.Sprintf(`"id":"%s-%d"`, k.Name, r.IntN(8)), `"created_at":` + when(), `"updated_at":` + when()}
	for _, f := range k.DroidFields {
		if r.IntN(5) > 0 {
			fields = append(fields, fmt.Sprintf(`%q:"%s"`, f, pick()))
		}
	}
	if r.IntN(7) == 0 {
		fields = append(fields, `"updated_by":null`)
	}
	return "{" + strings.Join(fields, ",") + "}"
}

// Versions appended over time to both sources of every kind, read at a
// moving now (forwards, and once set back), give what a fold of every
// line gives at that now: the kept folds grow as fresh ones, sources
// combine, times further ahead than the skew count only once they come
// within it, and a log rewritten (compacted) is folded again.
func TestFoldedRosterEqualsAFreshOne(t *testing.T) {
	for seed := range uint64(6) {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 7))
			s := foldStore(t)
			now := foldT0
			for step := range 12 {
				for _, k := range records.Kinds {
					path := s.S.Log(k.File).Path
					if r.IntN(2) == 0 {
						path = store.ReceivedPath(s.S.WS, k.File)
					}
					for range r.IntN(6) {
						addLines(t, path, randomLine(r, k, now))
					}
				}
				switch step {
				case 5: // the clock set back: a last sighting no longer believable
					now = now.Add(-3 * time.Hour)
				case 8: // a compaction: the live messages keep their last lines
					compactTail(t, s.S.Log(records.MessagesFile).Path)
				default:
					now = now.Add(time.Duration(r.IntN(90)) * time.Minute)
				}
				checkList(t, s, now, fmt.Sprintf("step %d", step))
				checkList(t, s, now, fmt.Sprintf("step %d, read again", step))
			}
			checkList(t, s, time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC), "in 2099")
		})
	}
}

// compactTail rewrites a log with its second half only, as a rewrite
// that drops lines would.
func compactTail(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	if err := os.WriteFile(path, []byte(strings.Join(lines[len(lines)/2:], "")), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A version dated far ahead is no sighting until its time comes, and
// costs no fold from the start at every read meanwhile: the saved fold
// is believed (its file is not written again) until then.
func TestAFarFutureVersionDoesNotRefoldEveryRead(t *testing.T) {
	s := foldStore(t)
	path := s.S.Log(records.MessagesFile).Path
	addLines(t, path,
		`{"id":"m1","from":"ann","to":"bob","created_at":"2026-11-22T11:00:00Z","updated_at":"2026-11-22T11:00:00Z"}`,
		`{"id":"m2","from":"ann","to":"bob","created_at":"2099-01-01T00:00:00Z","updated_at":"2099-01-01T00:00:00Z"}`)
	list := checkList(t, s, foldT0, "first read")
	if d := list[0]; d.Name != "ann" || d.Last == nil || !d.Last.Equal(foldT0.Add(-time.Hour)) {
		t.Fatalf("ann %+v; want last seen an hour ago, not in 2099", d)
	}
	folds, err := filepath.Glob(filepath.Join(s.S.CacheDir(), "*.fold"))
	if err != nil || len(folds) != 1 {
		t.Fatalf("fold caches %v %v; want one", folds, err)
	}
	before, err := os.Stat(folds[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, later := range []time.Duration{time.Minute, time.Hour, 24 * time.Hour, 365 * 24 * time.Hour} {
		checkList(t, s, foldT0.Add(later), fmt.Sprint("read ", later, " later"))
		if after, err := os.Stat(folds[0]); err != nil || !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
			t.Fatalf("%s later, the fold was saved again: folded from the start", later)
		}
	}
	in2099 := time.Date(2099, 1, 1, 0, 1, 0, 0, time.UTC)
	list = checkList(t, s, in2099, "in 2099")
	if d := list[0]; d.Last == nil || !d.Last.Equal(time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("ann in 2099: %+v; want seen then", d)
	}
}

// A droid that wrote a version another droid superseded since was seen
// when it wrote it, and a name only a superseded version held is listed.
func TestSupersededVersionsCount(t *testing.T) {
	s := foldStore(t)
	addLines(t, s.S.Log(records.AssignmentsFile).Path,
		`{"id":"a1","droid":"ann","assigned_by":"bob","created_at":"2026-11-22T09:00:00Z","updated_at":"2026-11-22T09:00:00Z"}`,
		`{"id":"a1","droid":"carl","assigned_by":"bob","updated_by":"dora","created_at":"2026-11-22T09:00:00Z","updated_at":"2026-11-22T10:00:00Z"}`)
	addLines(t, store.ReceivedPath(s.S.WS, records.AssignmentsFile),
		`{"id":"a1","droid":"carl","assigned_by":"bob","updated_by":"eve","created_at":"2026-11-22T09:00:00Z","updated_at":"2026-11-22T11:00:00Z"}`)
	list := checkList(t, s, foldT0, "read")
	names := []string{}
	last := map[string]time.Time{}
	for _, d := range list {
		names = append(names, d.Name)
		if d.Last != nil {
			last[d.Name] = *d.Last
		}
	}
	if !slices.Equal(names, []string{"ann", "bob", "carl", "dora", "eve"}) {
		t.Fatalf("droids %v; want ann (a superseded holder) among them", names)
	}
	if got := last["dora"]; !got.Equal(foldT0.Add(-2 * time.Hour)) {
		t.Fatalf("dora, whose version eve superseded, last seen %v; want when she wrote it", got)
	}
	if got := last["eve"]; !got.Equal(foldT0.Add(-time.Hour)) {
		t.Fatalf("eve last seen %v", got)
	}
}

// What List keeps between reads is the size of the roster, not of the
// logs: thousands of versions by a few droids in both sources leave
// caches of a few kilobytes (a selection of every current version would
// be as large as the logs).
func TestListKeepsCachesTheSizeOfTheRoster(t *testing.T) {
	s := foldStore(t)
	var lines []string
	for i := range 6000 {
		at := foldT0.Add(-time.Duration(i) * time.Minute).Format(time.RFC3339Nano)
		lines = append(lines, fmt.Sprintf(`{"id":"m%d","from":"droid-%d","to":"droid-%d","subject":"%s","created_at":%q,"updated_at":%q}`,
			i, i%3, (i+1)%3, strings.Repeat("x", 200), at, at))
	}
	addLines(t, s.S.Log(records.MessagesFile).Path, lines[:3000]...)
	addLines(t, store.ReceivedPath(s.S.WS, records.MessagesFile), lines[3000:]...)
	for range 2 {
		if list := checkList(t, s, foldT0, "read"); len(list) != 3 {
			t.Fatalf("%d droids, want 3", len(list))
		}
	}
	var cached int64
	entries, err := os.ReadDir(s.S.CacheDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if info, err := e.Info(); err == nil && !strings.HasPrefix(e.Name(), "log-") { // the logs' indexes are their writers'
			cached += info.Size()
		}
	}
	if cached == 0 || cached > 8<<10 {
		t.Fatalf("List left %d bytes of caches for 3 droids in 6,000 versions; want a few kilobytes", cached)
	}
}

// A version noted as from the future when it arrived (store.Arrival) is a
// sighting of its writer then, read again from the saved fold, until its
// own time is believed; another version of its id is not.
func TestAVersionFromTheFutureIsSeenWhenItArrived(t *testing.T) {
	s := foldStore(t)
	path := store.ReceivedPath(s.S.WS, records.MessagesFile)
	line := `{"id":"m1","from":"ann","to":"bob","created_at":"2099-01-01T00:00:00Z","updated_at":"2099-01-01T00:00:00Z"}`
	note := store.Arrival{ID: "m1", Version: records.VersionKey([]byte(line)), At: foldT0, Until: time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)}
	if err := store.AddArrivals(path, []store.Arrival{note}, foldT0); err != nil {
		t.Fatal(err)
	}
	addLines(t, path, line, `{"id":"m1","from":"ann","to":"bob","created_at":"2099-01-01T00:00:00Z","updated_at":"2099-01-02T00:00:00Z","updated_by":"bob"}`)
	for _, now := range []time.Time{foldT0, foldT0.Add(time.Hour), foldT0.Add(2 * time.Hour), time.Date(2099, 1, 1, 0, 1, 0, 0, time.UTC)} {
		list, err := s.List(now, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]time.Time{"ann": foldT0}
		if now.Year() == 2099 {
			want["ann"] = time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)
		}
		for _, d := range list {
			if w := want[d.Name]; (d.Last == nil) != w.IsZero() || (d.Last != nil && !d.Last.Equal(w)) {
				t.Fatalf("at %s: %s last seen %v; want %v", now, d.Name, d.Last, w)
			}
		}
	}
}
