package store

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/workspace"
	"github.com/git-queen/git-queen/internal/testgit"
)

// repoStore is the live store of a real repository.
func repoStore(t *testing.T) *Store {
	t.Helper()
	testgit.Isolate(t)
	ws, err := workspace.Find(workspace.Options{Dir: testgit.Init(t)})
	if err != nil {
		t.Fatal(err)
	}
	return &Store{WS: ws, NoSync: true}
}

// Now is the clock's time in UTC, to the millisecond, as every record is
// written.
func TestNow(t *testing.T) {
	zone := time.FixedZone("X", 3*3600)
	s := &Store{Clock: func() time.Time { return time.Date(2026, 11, 22, 15, 4, 5, 123456789, zone) }}
	if got, want := s.Now(), time.Date(2026, 11, 22, 12, 4, 5, 123000000, time.UTC); !got.Equal(want) || got.Location() != time.UTC {
		t.Errorf("Now = %s, want %s", got, want)
	}
	if (&Store{}).Now().IsZero() {
		t.Error("without a clock, Now is zero")
	}
}

// A read unions this clone's log with the received one; for each id the
// version the version rule prefers wins, wherever its line lies; a named
// (cached) query sees what is appended after it ran.
func TestSelectUnionsSourcesByTheVersionRule(t *testing.T) {
	tests := []struct {
		name          string
		own, received []string
		want          []string
	}{
		{"one source, the newest not last", []string{a3, b1, a1}, nil, []string{a3, b1}},
		{"newer in the received log", []string{a1, b1}, []string{a2}, []string{a2, b1}},
		{"newer in this clone's log", []string{a3}, []string{a2, c1}, []string{a3, c1}},
		{"the same version in both", []string{a1}, []string{a1}, []string{a1}},
	}
	for _, name := range []string{"", "test-query"} {
		for _, tt := range tests {
			t.Run(tt.name+" "+name, func(t *testing.T) {
				s := repoStore(t)
				write(t, s.Log(records.MessagesFile).Path, tt.own...)
				if tt.received != nil {
					write(t, ReceivedPath(s.WS, records.MessagesFile), tt.received...)
				}
				sel := selectAll(t, s, name)
				if !slices.Equal(sel, tt.want) {
					t.Errorf("selected\n%s\nwant\n%s", strings.Join(sel, "\n"), strings.Join(tt.want, "\n"))
				}
				// A newer version appended afterwards is seen, cache or not.
				err := s.Update(func(tx *jsonl.Tx) error {
					return tx.Append(s.Log(records.MessagesFile), []byte(`{"id":"qm-a","updated_at":"2026-12-01T00:00:00Z","v":9}`))
				})
				if err != nil {
					t.Fatal(err)
				}
				if sel := selectAll(t, s, name); sel[0] != `{"id":"qm-a","updated_at":"2026-12-01T00:00:00Z","v":9}` {
					t.Errorf("after an append: %s", sel[0])
				}
			})
		}
	}
}

func selectAll(t *testing.T, s *Store, name string) []string {
	t.Helper()
	sel, err := s.Select(records.MessagesFile, Query{Name: name, Query: jsonl.Query{Fields: []string{"id"}}})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range sel.Entries {
		out = append(out, string(e.Raw))
	}
	return out
}

// Keep filters each source; Final filters the union's winners, so an old
// version kept in one source cannot outlive a newer one elsewhere.
func TestFinalFiltersTheWinners(t *testing.T) {
	s := repoStore(t)
	write(t, s.Log(records.MessagesFile).Path, a1, b1)
	write(t, ReceivedPath(s.WS, records.MessagesFile), a3)
	isV1 := func(f [][]byte) bool { return string(f[1]) == "1" }
	sel, err := s.Select(records.MessagesFile, Query{Query: jsonl.Query{Fields: []string{"id", "v"}}, Final: isV1})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range sel.Entries {
		ids = append(ids, e.ID)
	}
	if !slices.Equal(ids, []string{"qm-b"}) {
		t.Errorf("winners at v1: %v (qm-a's current version is v3)", ids)
	}
	static, err := s.Select(records.MessagesFile, Query{Query: jsonl.Query{Fields: []string{"id"},
		Static: func(f [][]byte) bool { return jsonline.StringEquals(f[0], "qm-a") }}})
	if err != nil || len(static.Entries) != 1 || string(static.Entries[0].Raw) != a3 || len(static.Sources) != 2 {
		t.Errorf("a static filter: %+v, %v", static, err)
	}
}

// The live store reads the received log once it exists; a plain directory
// store has one source; Fetched adds sources only where asked for.
func TestSources(t *testing.T) {
	s := repoStore(t)
	count := func(src *Sources, err error) int {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return src.Count()
	}
	if n := count(s.Sources(records.MessagesFile)); n != 1 {
		t.Errorf("before anything was received: %d sources", n)
	}
	write(t, ReceivedPath(s.WS, records.MessagesFile), a1)
	if n := count(s.Sources(records.MessagesFile)); n != 2 {
		t.Errorf("with a received log: %d sources", n)
	}
	if n := len(s.Logs(records.MessagesFile)); n != 2 {
		t.Errorf("the live store rewrites %d logs, want 2", n)
	}
	fetched := filepath.Join(t.TempDir(), "fetched.jsonl")
	s.Fetched = func(string) ([]string, error) { return []string{fetched}, nil }
	if n := count(s.SourcesWithFetched(records.ReservationsFile)); n != 2 {
		t.Errorf("with a fetched source: %d", n)
	}
	if n := count(s.Sources(records.ReservationsFile)); n != 1 {
		t.Errorf("Sources counts the fetched one: %d", n)
	}
	dir := t.TempDir()
	plain := &Store{WS: &workspace.Workspace{Dir: dir, BeadsDir: dir}}
	write(t, ReceivedPath(plain.WS, records.MessagesFile), a1)
	if n := count(plain.Sources(records.MessagesFile)); n != 1 || len(plain.Logs(records.MessagesFile)) != 1 {
		t.Errorf("a plain directory store reads %d sources", n)
	}
}

// A watcher wakes when a log changes in any source, the received one
// included, even when it did not exist when the watch began.
func TestWatchWakesOnAppends(t *testing.T) {
	for _, target := range []string{"own", "received"} {
		t.Run(target, func(t *testing.T) {
			s := repoStore(t)
			if err := os.MkdirAll(s.WS.Dir, 0o755); err != nil {
				t.Fatal(err)
			}
			w := s.Watch(records.MessagesFile)
			defer w.Close()
			log := s.Log(records.MessagesFile)
			if target == "received" {
				log = s.ReceivedLog(records.MessagesFile)
			}
			if err := s.Update(func(tx *jsonl.Tx) error { return tx.Append(log, []byte(a1)) }); err != nil {
				t.Fatal(err)
			}
			// The deadline only keeps a broken watcher from hanging the run.
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			select {
			case <-w.C:
			case <-ctx.Done():
				t.Fatal("no wake-up after an append")
			}
		})
	}
}

// A watcher goes on waking after the store's directory is moved away or
// removed and made again (a store reset under a waiting msg wait): it
// watched the directory it started with, and slept through every append
// to the new one.
func TestWatchFollowsTheStoreDirectoryMadeAgain(t *testing.T) {
	for _, gone := range []string{"moved", "removed"} {
		t.Run(gone, func(t *testing.T) {
			s := repoStore(t)
			if err := os.MkdirAll(s.WS.Dir, 0o755); err != nil {
				t.Fatal(err)
			}
			w := s.Watch(records.MessagesFile)
			defer w.Close()
			// The deadline only keeps a broken watcher from hanging the run.
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			wake := func(after string) {
				t.Helper()
				select {
				case <-w.C:
				case <-ctx.Done():
					t.Fatalf("no wake-up after %s", after)
				}
			}
			var err error
			if gone == "moved" {
				err = os.Rename(s.WS.Dir, s.WS.Dir+".old")
			} else {
				err = os.RemoveAll(s.WS.Dir)
			}
			if err != nil {
				t.Fatal(err)
			}
			wake("the directory was " + gone)
			if err := os.MkdirAll(s.WS.Dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := s.Update(func(tx *jsonl.Tx) error { return tx.Append(s.Log(records.MessagesFile), []byte(a1)) }); err != nil {
				t.Fatal(err)
			}
			wake("an append to the directory made again")
		})
	}
}

// A named query over several sources answers from every source as it is
// now: an append to any of them, a source that appears, and one rewritten
// in place by another program (same size) are each seen by the next read.
// (A cache of the union's answer once had to prove each of these.)
func TestUnionSeesEveryChangeOfEverySource(t *testing.T) {
	s := repoStore(t)
	own, received := s.Log(records.MessagesFile).Path, ReceivedPath(s.WS, records.MessagesFile)
	write(t, own, a1, b1)
	for _, step := range []struct {
		name   string
		change func()
		want   []string
	}{
		{"as written", func() {}, []string{a1, b1}},
		{"the received log appears", func() { write(t, received, a2) }, []string{a2, b1}},
		{"an append to the received log", func() {
			if err := s.Update(func(tx *jsonl.Tx) error { return tx.Append(s.ReceivedLog(records.MessagesFile), []byte(c1)) }); err != nil {
				t.Fatal(err)
			}
		}, []string{a2, b1, c1}},
		{"the received log rewritten in place", func() {
			f, err := os.OpenFile(received, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteAt([]byte("3"), int64(len(a2)-2)); err != nil { // "v":2 -> "v":3, same size
				t.Fatal(err)
			}
			// Within one timestamp tick of the append before, a kernel with
			// coarse times would show the same stat: make the change visible
			// as a later write would be (stats are trusted as git trusts them).
			later := time.Now().Add(time.Second)
			os.Chtimes(received, later, later)
		}, []string{strings.Replace(a2, `"v":2`, `"v":3`, 1), b1, c1}},
	} {
		step.change()
		for range 2 { // the second read may answer from what the first left
			if got := selectAll(t, s, "union-query"); !slices.Equal(got, step.want) {
				t.Fatalf("%s: selected\n%s\nwant\n%s", step.name, strings.Join(got, "\n"), strings.Join(step.want, "\n"))
			}
		}
	}
}

// The union cache of a named query is believed only while every source
// holds what its index vouched for: after each change below, the cache
// saved before it no longer holds, and the next two reads answer from the
// sources as they are. A source rewritten in place at the same size with
// its mtime set back is caught by its index, which no longer matches.
func TestUnionCacheIsNotBelievedAfterASourceChanged(t *testing.T) {
	s := repoStore(t)
	own, received := s.Log(records.MessagesFile), s.ReceivedLog(records.MessagesFile)
	appendLines := func(l *jsonl.Log, lines ...string) {
		t.Helper()
		for _, line := range lines {
			if err := s.Update(func(tx *jsonl.Tx) error { return tx.Append(l, []byte(line)) }); err != nil {
				t.Fatal(err)
			}
		}
	}
	appendLines(own, a1, b1)
	q := Query{Name: "union-query", Query: jsonl.Query{Fields: []string{"id"}}}.withVersions()
	unionHolds := func() bool {
		src, err := s.Sources(records.MessagesFile)
		if err != nil {
			t.Fatal(err)
		}
		union := filepath.Join(s.CacheDir(), queryHash(strings.Join(src.Paths, "\x00"), q.Name)+".union")
		return unionCacheHolds(union, s.CacheDir(), src.Paths, q.Query)
	}
	for _, step := range []struct {
		name   string
		change func()
		want   []string
	}{
		{"the received log appears", func() { appendLines(received, a2) }, []string{a2, b1}},
		{"an append to the received log", func() { appendLines(received, c1) }, []string{a2, b1, c1}},
		{"the received log rewritten in place, its mtime set back", func() {
			setBack(t, received.Path, func(f *os.File) error {
				_, err := f.WriteAt([]byte("3"), int64(len(a2)-2)) // "v":2 -> "v":3, same size
				return err
			})
		}, []string{strings.Replace(a2, `"v":2`, `"v":3`, 1), b1, c1}},
		{"this clone's log replaced by a rename, the same size", func() {
			next := own.Path + ".next"
			write(t, next, a1, strings.Replace(b1, `"v":1`, `"v":7`, 1))
			if err := os.Rename(next, own.Path); err != nil {
				t.Fatal(err)
			}
		}, []string{strings.Replace(a2, `"v":2`, `"v":3`, 1), strings.Replace(b1, `"v":1`, `"v":7`, 1), c1}},
	} {
		if step.name != "the received log appears" {
			// Each source has an index (kept by git-queen's appends, or
			// rebuilt after a change of another program's, as the next
			// append would): the answer before the change was cached.
			if err := s.Update(func(tx *jsonl.Tx) error { tx.Reindex(own); tx.Reindex(received); return nil }); err != nil {
				t.Fatal(err)
			}
			selectAll(t, s, "union-query")
			if !unionHolds() {
				t.Fatalf("before %s: no union cache holds", step.name)
			}
		}
		step.change()
		if unionHolds() {
			t.Fatalf("%s: the union cache saved before still holds", step.name)
		}
		for range 2 {
			if got := selectAll(t, s, "union-query"); !slices.Equal(got, step.want) {
				t.Fatalf("%s: selected\n%s\nwant\n%s", step.name, strings.Join(got, "\n"), strings.Join(step.want, "\n"))
			}
		}
	}
}

// setBack changes the file at path in place with change, then sets its
// times back to what they were: size, inode and mtime as before, only the
// ctime moved. It waits out a timestamp tick first (a write in the tick of
// git-queen's last one is the blind spot of any stat).
func setBack(t *testing.T, path string, change func(*os.File) error) {
	t.Helper()
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := change(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, before.ModTime(), before.ModTime()); err != nil {
		t.Fatal(err)
	}
	if after, err := os.Stat(path); err != nil || after.Size() != before.Size() || !after.ModTime().Equal(before.ModTime()) {
		t.Fatalf("the change moved more than the bytes and the ctime: %v", err)
	}
}

// A fetched source (a file written once, which no writer indexes) is
// indexed by the first read that lists it, so that the union over it is
// cached as over the store's own logs; rewritten in place (its mtime set
// back), it is read again, not answered from that cache.
func TestAFetchedSourceIsIndexedForTheUnionCache(t *testing.T) {
	s := repoStore(t)
	if err := s.Update(func(tx *jsonl.Tx) error { return tx.Append(s.Log(records.MessagesFile), []byte(a1)) }); err != nil {
		t.Fatal(err)
	}
	fetched := filepath.Join(s.CacheDir(), "fetched.jsonl")
	write(t, fetched, b1)
	s.Fetched = func(string) ([]string, error) { return []string{fetched}, nil }
	q := Query{Name: "union-query", Query: jsonl.Query{Fields: []string{"id"}}}
	read := func() []string {
		t.Helper()
		src, err := s.SourcesWithFetched(records.MessagesFile)
		if err != nil {
			t.Fatal(err)
		}
		sel, err := s.SelectFrom(src, q)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range sel.Entries {
			out = append(out, string(e.Raw))
		}
		return out
	}
	unionHolds := func() bool {
		paths := []string{s.Log(records.MessagesFile).Path, fetched}
		union := filepath.Join(s.CacheDir(), queryHash(strings.Join(paths, "\x00"), q.Name)+".union")
		return unionCacheHolds(union, s.CacheDir(), paths, q.withVersions().Query)
	}
	if got := read(); !slices.Equal(got, []string{a1, b1}) {
		t.Fatalf("selected %q", got)
	}
	if !unionHolds() {
		t.Fatal("the union over a fetched source is not cached")
	}
	setBack(t, fetched, func(f *os.File) error {
		_, err := f.WriteAt([]byte("7"), int64(len(b1)-2)) // "v":1 -> "v":7, same size
		return err
	})
	if unionHolds() {
		t.Fatal("the union cache holds after the fetched source was rewritten")
	}
	if got, want := read(), []string{a1, strings.Replace(b1, `"v":1`, `"v":7`, 1)}; !slices.Equal(got, want) {
		t.Fatalf("after the rewrite: selected %q, want %q", got, want)
	}
}

// unionCacheHolds says whether the union cache at union answers q over
// paths, as SelectFrom reads it: over what UnionHeld says they hold now.
func unionCacheHolds(union, cacheDir string, paths []string, q jsonl.Query) bool {
	held, ok := jsonl.UnionHeld(cacheDir, paths)
	if !ok {
		return false
	}
	_, _, hit := jsonl.ReadUnionCache(union, paths, held, q, nil)
	return hit
}
