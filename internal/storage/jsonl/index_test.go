package jsonl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/base/crc32c"
	"github.com/git-queen/git-queen/internal/base/jsonline"
)

// chainLog is a log whose appends keep its index in dir/cache, and the
// path of a selection cache beside it.
func chainLog(t *testing.T) (*Log, string) {
	t.Helper()
	dir := t.TempDir()
	l := &Log{Path: filepath.Join(dir, "log.jsonl"), Lock: &Lock{Path: filepath.Join(dir, "lock")}, NoSync: true,
		CacheDir: filepath.Join(dir, "cache")}
	return l, filepath.Join(l.CacheDir, "q.idx")
}

func appendRecords(t *testing.T, l *Log, records ...any) {
	t.Helper()
	if err := l.Lock.Do(func(tx *Tx) error { return tx.Append(l, records...) }); err != nil {
		t.Fatal(err)
	}
}

// appendForeign appends a line to path as another program would: without
// the lock or the chain.
func appendForeign(t *testing.T, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(f, `{"id":"foreign"}`)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// indexedLog is a log whose writer keeps its index in dir/cache.
func indexedLog(t *testing.T, v *jsonline.Versions) *Log {
	t.Helper()
	l, _ := chainLog(t)
	l.Versions = v
	return l
}

// openIndexNow opens the log's index against the log's stat now.
func openIndexNow(t *testing.T, l *Log) (*Index, bool) {
	t.Helper()
	info, err := os.Stat(l.Path)
	if err != nil {
		t.Fatal(err)
	}
	return OpenIndex(l.CacheDir, l.Path, info)
}

// checkIndex fails unless the log's index matches the log: it covers
// all of its bytes, and places the current version of every id where a
// full load of the log finds it.
func checkIndex(t *testing.T, l *Log, step string) {
	t.Helper()
	ix, ok := openIndexNow(t, l)
	if !ok {
		t.Fatalf("%s: no index matches the log", step)
	}
	defer ix.Close()
	data, err := os.ReadFile(l.Path)
	if err != nil {
		t.Fatal(err)
	}
	size, lines, crc := ix.Covered()
	if size != int64(len(data)) || lines != int64(bytes.Count(data, []byte{'\n'})) || crc != crc32c.Checksum(data) {
		t.Fatalf("%s: the index covers %d bytes, %d lines, crc %08x; the log is %d, %d, %08x",
			step, size, lines, crc, len(data), bytes.Count(data, []byte{'\n'}), crc32c.Checksum(data))
	}
	st, err := l.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range st.Records {
		off, _, found, err := ix.Lookup(r.ID)
		if err != nil || !found || off != r.Offset {
			t.Fatalf("%s: %q at %d (found %v, %v), want %d", step, r.ID, off, found, err, r.Offset)
		}
	}
	if _, _, found, _ := ix.Lookup("never written"); found {
		t.Fatalf("%s: an id the log never held is found", step)
	}
}

func TestIndexPlacesEveryIDsCurrentVersion(t *testing.T) {
	for _, v := range []*jsonline.Versions{nil, testVersions} {
		l := indexedLog(t, v)
		line := func(id string, minute int, state string) json.RawMessage {
			return json.RawMessage(versionLine(id, minute, state))
		}
		steps := [][]any{
			{line("a", 10, "new"), line("b", 10, "new"), map[string]int{"not": 1}},
			{line("a", 12, "read")},
			{line("a", 11, "stale replay"), line("b", 10, "tie, larger bytes")},
			{line(`quo"te`, 1, "escaped id"), line("c", 1, "x"), line("c", 3, "y"), line("c", 2, "z")},
			{line("b", 10, "a tie, smaller")},
		}
		for i, records := range steps {
			appendRecords(t, l, records...)
			checkIndex(t, l, fmt.Sprintf("versions %v, append %d", v != nil, i))
		}
	}
}

// The index proves the log's bytes after each of the last ringLength
// appends by their size and checksum, and nothing else.
func TestIndexProvesTheLogAfterEachOfTheLastAppends(t *testing.T) {
	l := indexedLog(t, testVersions)
	var states []checkpoint
	for i := range ringLength + 6 {
		appendRecords(t, l, json.RawMessage(versionLine(fmt.Sprint("id", i%7), i%60, "s")))
		data, err := os.ReadFile(l.Path)
		if err != nil {
			t.Fatal(err)
		}
		states = append(states, checkpoint{int64(len(data)), crc32c.Checksum(data)})
	}
	ix, ok := openIndexNow(t, l)
	if !ok {
		t.Fatal("no index matches the log")
	}
	defer ix.Close()
	for _, c := range states[len(states)-ringLength:] {
		if !ix.Proves(c.size, c.crc) {
			t.Errorf("the log at %d bytes is not proved", c.size)
		}
		if ix.Proves(c.size, c.crc^1) || ix.Proves(c.size+1, c.crc) {
			t.Errorf("a wrong checksum or size at %d bytes is proved", c.size)
		}
	}
}

// ProvesPrefix proves every earlier state of the log, those the ring
// has forgotten too, by the bytes after it, and nothing else: not a wrong
// checksum, nor (for a state the ring forgot) a tail with one byte
// changed or missing.
func TestIndexProvesAnyPrefixByTheBytesAfterIt(t *testing.T) {
	l := indexedLog(t, testVersions)
	var states []checkpoint
	for i := range 2*ringLength + 6 {
		appendRecords(t, l, json.RawMessage(versionLine(fmt.Sprint("id", i%7), i%60, "s")))
		data, err := os.ReadFile(l.Path)
		if err != nil {
			t.Fatal(err)
		}
		states = append(states, checkpoint{int64(len(data)), crc32c.Checksum(data)})
	}
	data, err := os.ReadFile(l.Path)
	if err != nil {
		t.Fatal(err)
	}
	ix, ok := openIndexNow(t, l)
	if !ok {
		t.Fatal("no index matches the log")
	}
	defer ix.Close()
	if ix.Proves(states[0].size, states[0].crc) {
		t.Fatal("the ring still holds the first state: the test proves nothing beyond Proves")
	}
	for _, c := range append([]checkpoint{{0, 0}}, states...) {
		tail := data[c.size:]
		if !ix.ProvesPrefix(c.size, c.crc, tail) {
			t.Errorf("the log at %d bytes is not proved by the %d bytes after it", c.size, len(tail))
		}
		if ix.ProvesPrefix(c.size, c.crc^1, tail) {
			t.Errorf("a wrong checksum at %d bytes is proved", c.size)
		}
		if len(tail) > 0 && !ix.Proves(c.size, c.crc) { // the ring proves the rest whatever tail says
			bent := slices.Clone(tail)
			bent[len(bent)/2] ^= 0x20
			if ix.ProvesPrefix(c.size, c.crc, bent) || ix.ProvesPrefix(c.size, c.crc, tail[1:]) {
				t.Errorf("the log at %d bytes is proved by a changed or shorter tail", c.size)
			}
		}
	}
}

func TestIndexMergesItsRecordsPastItsBound(t *testing.T) {
	defer func(n int) { indexRecordsMax = n }(indexRecordsMax)
	indexRecordsMax = 512
	l := indexedLog(t, testVersions)
	for i := range 120 {
		appendRecords(t, l, json.RawMessage(versionLine(fmt.Sprint("id", i%13), i%60, fmt.Sprint(i))))
		checkIndex(t, l, fmt.Sprint("append ", i))
	}
	ix, ok := openIndexNow(t, l)
	if !ok {
		t.Fatal("no index matches the log")
	}
	defer ix.Close()
	if len(ix.sorted) != 13*indexEntrySize || len(ix.records) > indexRecordsMax+indexStateSize+8+indexEntrySize {
		t.Fatalf("after 120 appends of 13 ids: %d sorted bytes, %d of records; the records were not merged", len(ix.sorted), len(ix.records))
	}
}

// A write that is not the writer's leaves the log at a stat the index
// does not know: nobody believes the index until the next append has
// rebuilt it from the log.
func TestIndexIsRebuiltAfterAWriteNotItsWriters(t *testing.T) {
	l := indexedLog(t, testVersions)
	appendRecords(t, l, json.RawMessage(versionLine("a", 1, "new")), json.RawMessage(versionLine("b", 1, "new")))
	checkIndex(t, l, "first append")
	appendForeign(t, l.Path)
	if _, ok := openIndexNow(t, l); ok {
		t.Fatal("an index believed after another program appended")
	}
	appendRecords(t, l, json.RawMessage(versionLine("c", 1, "new")))
	checkIndex(t, l, "the append after a foreign one")
	// An edit in place that keeps the size, once its timestamp tick has
	// passed (the blind spot of any stat, as of git's index).
	time.Sleep(20 * time.Millisecond)
	data, err := os.ReadFile(l.Path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(l.Path, bytes.Replace(data, []byte(`"new"`), []byte(`"NEW"`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := openIndexNow(t, l); ok {
		t.Fatal("an index believed after an edit in place")
	}
	appendRecords(t, l, json.RawMessage(versionLine("d", 1, "new")))
	checkIndex(t, l, "the append after an edit")
}

// A damaged index is never believed where it is wrong, and the next
// append rebuilds it.
func TestADamagedIndexCostsARebuild(t *testing.T) {
	damages := map[string]func([]byte) []byte{
		"a header byte flipped": func(b []byte) []byte { b[20] ^= 1; return b },
		"an entry flipped":      func(b []byte) []byte { b[indexHeaderSize+3] ^= 1; return b },
		"a record torn":         func(b []byte) []byte { return b[:len(b)-5] },
		"a record flipped":      func(b []byte) []byte { b[len(b)-20] ^= 1; return b },
		"empty":                 func([]byte) []byte { return nil },
		"not an index":          func([]byte) []byte { return []byte("{}\n") },
	}
	for name, damage := range damages {
		l := indexedLog(t, testVersions)
		appendRecords(t, l, json.RawMessage(versionLine("a", 1, "new")), json.RawMessage(versionLine("b", 1, "new")))
		appendRecords(t, l, json.RawMessage(versionLine("a", 2, "read")))
		path := IndexPath(l.CacheDir, l.Path)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, damage(data), 0o644); err != nil {
			t.Fatal(err)
		}
		if ix, ok := openIndexNow(t, l); ok {
			if _, _, _, err := ix.Lookup("a"); !errors.Is(err, ErrDamagedIndex) {
				t.Errorf("%s: the index is believed", name)
			}
			ix.Close()
		}
		appendRecords(t, l, json.RawMessage(versionLine("c", 1, "new")))
		checkIndex(t, l, name+", then an append")
	}
}

// A compaction or an archive renames a new log in, and drops the index
// of the old one; the next append rebuilds it.
func TestRewritesDropTheIndex(t *testing.T) {
	l := indexedLog(t, testVersions)
	for i := range 30 {
		appendRecords(t, l, json.RawMessage(versionLine(fmt.Sprint("id", i%5), i, "s")))
	}
	rewrites := []func() error{
		func() error { _, err := l.Compact(); return err },
		func() error {
			_, err := l.Archive(func(r Record) bool { return bytes.Contains(r.Raw, []byte(`"id0"`)) })
			return err
		},
	}
	for i, rewrite := range rewrites {
		if err := rewrite(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(IndexPath(l.CacheDir, l.Path)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("rewrite %d left the old file's index: %v", i, err)
		}
		appendRecords(t, l, json.RawMessage(versionLine("id1", 40+i, "after")))
		checkIndex(t, l, fmt.Sprint("the append after rewrite ", i))
	}
}

// cachedSelect returns a function that selects from l through the
// selection cache at cache, counting in summed the checksums of a prefix
// it takes, and fails the test when the answer differs from a scan.
func cachedSelect(t *testing.T, l *Log, cache string, summed *int) func(step string) {
	q := Query{Fields: []string{"state"}, Versions: testVersions}
	return func(step string) {
		t.Helper()
		data, err := os.ReadFile(l.Path)
		if err != nil {
			t.Fatal(err)
		}
		info, err := os.Stat(l.Path)
		if err != nil {
			t.Fatal(err)
		}
		checksum := func(n int64) uint32 { *summed++; return crc32c.Checksum(data[:n]) }
		got, _ := selectIncremental(data, l.Path, q, cache, checksum, info, nil)
		want, _ := Select(data, l.Path, q)
		if !entriesEqual(got, want) {
			t.Fatalf("%s: the cached answer differs from a scan:\n%+v\n%+v", step, got, want)
		}
	}
}

// A selection cache saved more appends ago than the index's ring holds
// is proved by the bytes appended since (ProvesPrefix), not by a checksum
// of the whole prefix; and a wrong checksum in it is still caught.
func TestSelectionCacheOlderThanTheRingIsProvedByItsTail(t *testing.T) {
	l := indexedLog(t, testVersions)
	cache := filepath.Join(l.CacheDir, "q.idx")
	summed := 0
	selectNow := cachedSelect(t, l, cache, &summed)
	appendRecords(t, l, json.RawMessage(versionLine("id0", 0, "new")))
	selectNow("the first read builds the cache")
	for i := range ringLength + 10 {
		appendRecords(t, l, json.RawMessage(versionLine(fmt.Sprint("id", i%9), 1+i%50, fmt.Sprint("w", i))))
	}
	summed = 0
	selectNow("a read after more appends than the ring holds")
	if summed != 0 {
		t.Fatalf("%d checksums of a prefix the bytes after it prove", summed)
	}
	// The cache's checksum bent: the tail no longer combines into the
	// log's checksum, so the prefix is checksummed (and found wrong).
	for i := range ringLength + 10 {
		appendRecords(t, l, json.RawMessage(versionLine(fmt.Sprint("id", i%9), 1+i%50, fmt.Sprint("x", i))))
	}
	raw, err := os.ReadFile(cache)
	if err != nil {
		t.Fatal(err)
	}
	var hdr cacheHeader
	first, body, _ := bytes.Cut(raw, []byte{'\n'})
	if err := json.Unmarshal(first, &hdr); err != nil {
		t.Fatal(err)
	}
	hdr.CRC ^= 1
	first, _ = json.Marshal(hdr)
	if err := os.WriteFile(cache, append(append(first, '\n'), body...), 0o644); err != nil {
		t.Fatal(err)
	}
	summed = 0
	selectNow("a read of a cache whose checksum is wrong")
	if summed == 0 {
		t.Fatal("a cache with a wrong checksum was believed")
	}
}

// A selection cache proves its prefix through the log's index, without
// its checksum, while the index matches the log; after a write that is
// not the writer's, only the checksum proves it.
func TestSelectionCacheProvesItsPrefixByTheIndex(t *testing.T) {
	l := indexedLog(t, testVersions)
	cache := filepath.Join(l.CacheDir, "q.idx")
	summed := 0
	selectNow := cachedSelect(t, l, cache, &summed)
	for i := range 3 {
		appendRecords(t, l, json.RawMessage(versionLine(fmt.Sprint("id", i), i, "new")))
	}
	selectNow("the first read builds the cache")
	summed = 0
	for i := range 5 {
		appendRecords(t, l, json.RawMessage(versionLine(fmt.Sprint("id", i), 10+i, "read")))
		selectNow(fmt.Sprint("read after append ", i))
	}
	if summed != 0 {
		t.Fatalf("%d checksums of a prefix the index vouched for", summed)
	}
	appendForeign(t, l.Path)
	selectNow("after a foreign append")
	if summed == 0 {
		t.Fatal("a prefix was believed without a checksum after a foreign write")
	}
	// The append after it rebuilds the index, which vouches for the log
	// as that append found it: the cache saved then needs no checksum.
	summed = 0
	appendRecords(t, l, json.RawMessage(versionLine("id9", 30, "new")))
	selectNow("after the append that rebuilt the index")
	if summed != 0 {
		t.Fatalf("%d checksums of the prefix the rebuilt index vouched for", summed)
	}
}

// An in-place rewrite of the cached prefix between two of git-queen's
// appends is still seen: the index no longer matches the log's stat, so
// the cache's checksum is checked, fails, and the log is scanned again.
func TestCacheWithAnIndexNoticesAnInPlaceEdit(t *testing.T) {
	l, cache := chainLog(t)
	q := Query{Fields: []string{"state"}}
	check := func(step, wantState string) {
		t.Helper()
		got, _, err := SelectFileCached(l.Path, q, cache)
		if err != nil {
			t.Fatal(err)
		}
		want, _, _ := SelectFile(l.Path, q)
		if !entriesEqual(got, want) {
			t.Fatalf("%s: cached answer differs from a full scan:\n%+v\n%+v", step, got, want)
		}
		for _, e := range got {
			if e.ID == "a" {
				if s, _ := jsonline.String(e.Fields[0]); s != wantState {
					t.Fatalf("%s: a is %q, want %q", step, s, wantState)
				}
			}
		}
	}
	appendRecords(t, l, map[string]string{"id": "a", "state": "new"}, map[string]string{"id": "b", "state": "new"})
	check("first read builds the cache", "new")
	appendRecords(t, l, map[string]string{"id": "c", "state": "new"})
	check("an append proved by the index", "new")
	data, err := os.ReadFile(l.Path)
	if err != nil {
		t.Fatal(err)
	}
	// A foreign write in the same timestamp tick as git-queen's append,
	// keeping the size, is the blind spot of any stat (index.go): let the
	// tick pass, as any edit by a person or another tool does.
	time.Sleep(20 * time.Millisecond)
	edited := []byte(string(data))
	copy(edited[len(`{"id":"a","state":"`):], "NEW")
	f, err := os.OpenFile(l.Path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(edited, 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	check("an in-place edit of the prefix", "NEW")
	appendRecords(t, l, map[string]string{"id": "d", "state": "new"})
	check("the next append after the edit", "NEW")
}

// A log another program wrote, large enough to be indexed a part on each
// core (ids whose versions straddle the parts, stale ones after newer
// ones, a byte order mark, lines that are not records), is indexed as a
// full load reads it.
func TestIndexRebuildsALargeLogInParts(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	defer func(n int) { indexBlockSize = n }(indexBlockSize)
	indexBlockSize = 64 << 10
	l := indexedLog(t, testVersions)
	var b bytes.Buffer
	b.WriteString("\xEF\xBB\xBF")
	for i := 0; b.Len() < 3*parallelThreshold; i++ {
		fmt.Fprintln(&b, versionLine(fmt.Sprint("id", i%997), (i*7)%60, fmt.Sprint("state ", i, strings.Repeat("x", i%50))))
		if i%1000 == 0 {
			fmt.Fprintln(&b, `{"no":"id"}`)
			fmt.Fprintln(&b)
		}
	}
	if err := os.MkdirAll(filepath.Dir(l.Path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(l.Path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	appendRecords(t, l, json.RawMessage(versionLine("id5", 59, "last")))
	checkIndex(t, l, "a large log, indexed in parts")
	ix, ok := openIndexNow(t, l)
	if !ok {
		t.Fatal("no index matches the log")
	}
	defer ix.Close()
	if !ix.Proves(int64(b.Len()), crc32c.Checksum(b.Bytes())) {
		t.Fatal("the log as the append that indexed it found it is not proved")
	}
}

// A batch of many lines (a sync's) is judged against the records the
// index appended since its last merge as one line is: a stale version of
// an id in them does not displace the newer one.
func TestIndexTakesABatchOfManyLines(t *testing.T) {
	l := indexedLog(t, testVersions)
	appendRecords(t, l, json.RawMessage(versionLine("base", 1, "new")))
	for i := range 5 {
		appendRecords(t, l, json.RawMessage(versionLine(fmt.Sprint("id", i), 30, "recorded")))
	}
	var batch []any
	for i := range 20 {
		batch = append(batch, json.RawMessage(versionLine(fmt.Sprint("id", i%10), 20+i%3*10, fmt.Sprint("batch ", i))))
	}
	appendRecords(t, l, batch...)
	checkIndex(t, l, "a batch of 20 lines")
}

// A rebuild vouches for the log as the append that made it found it,
// wherever that size falls among the blocks the rebuild reads: inside
// one, or exactly at the end of one (blocks end at line ends, as the log
// before an append does).
func TestIndexRebuildProvesTheLogBeforeItsAppendAtAnyBlockEdge(t *testing.T) {
	defer func(n int) { indexBlockSize = n }(indexBlockSize)
	for _, tc := range []struct {
		name  string
		block int
	}{
		{"the log inside one block", 4 << 20},
		{"a block a line: the log ends at a block's end", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			indexBlockSize = tc.block
			l := indexedLog(t, testVersions)
			var b bytes.Buffer
			for i := range 10 {
				fmt.Fprintln(&b, versionLine(fmt.Sprint("id", i), i, "written by another program"))
			}
			if err := os.MkdirAll(filepath.Dir(l.Path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(l.Path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			appendRecords(t, l, json.RawMessage(versionLine("id1", 59, "appended")))
			checkIndex(t, l, tc.name)
			ix, ok := openIndexNow(t, l)
			if !ok {
				t.Fatal("no index matches the log")
			}
			defer ix.Close()
			if !ix.Proves(int64(b.Len()), crc32c.Checksum(b.Bytes())) {
				t.Error("the log as the append that rebuilt the index found it is not proved")
			}
		})
	}
}
