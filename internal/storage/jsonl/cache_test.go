package jsonl

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
)

// entriesEqual compares two answers by id, line and bytes.
func entriesEqual(a, b []Entry) bool {
	return slices.EqualFunc(a, b, func(x, y Entry) bool {
		return x.ID == y.ID && x.Line == y.Line && string(x.Raw) == string(y.Raw) && x.Offset == y.Offset
	})
}

func TestSelectFileCachedMatchesAFullScan(t *testing.T) {
	dir := t.TempDir()
	path, cache := filepath.Join(dir, "log.jsonl"), filepath.Join(dir, "cache", "q")
	q := Query{Fields: []string{"to", "state"},
		Static: func(f [][]byte) bool { return jsonline.StringEquals(f[0], "ann") },
		Keep:   func(f [][]byte) bool { return !jsonline.StringEquals(f[1], "gone") }}
	write := func(content string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	check := func(step string) {
		t.Helper()
		got, gotProblems, err := SelectFileCached(path, q, cache)
		if err != nil {
			t.Fatal(err)
		}
		want, wantProblems, _ := SelectFile(path, q)
		if !entriesEqual(got, want) || !slices.Equal(gotProblems, wantProblems) {
			t.Fatalf("%s: cached answer differs from a full scan:\n%+v %v\n%+v %v", step, got, gotProblems, want, wantProblems)
		}
	}
	content := "\xef\xbb\xbf" + `{"id":"a","to":"ann","state":"new"}` + "\n" + `{"id":"b","to":"bob"}` + "\n" + "broken\n"
	write(content)
	check("first run builds the cache")
	check("second run reads it")
	content += `{"id":"a","to":"ann","state":"gone"}` + "\n" + `{"id":"c","to":"ann","state":"new"}` + "\n"
	write(content)
	check("appended lines: a is gone, c is new")
	content += `{"id":"a","to":"ann","state":"back"}` + "\n" + `{"id":"d","to":"ann"`
	write(content)
	check("an unterminated last line is not cached")
	write(strings.Replace(content, `"state":"new"}`+"\n"+`{"id":"b"`, `"state":"NEW"}`+"\n"+`{"id":"b"`, 1))
	check("a rewrite of the cached prefix is noticed")
	write(`{"id":"z","to":"ann"}` + "\n")
	check("a shorter file is noticed")

	// A damaged cache file only costs a rescan.
	for _, junk := range []string{"", "not json\n", `{"v":1,"size":5,"crc32c":1,"lines":1}` + "\n",
		fmt.Sprintf(`{"v":1,"size":%d,"crc32c":%d,"lines":1}`+"\n0 99999\n", 22, crcOf(t, path, 22))} {
		os.WriteFile(cache, []byte(junk), 0o644)
		check(fmt.Sprintf("damaged cache %q", junk))
	}
}

func crcOf(t *testing.T, path string, n int) uint32 {
	data, err := os.ReadFile(path)
	if err != nil || len(data) < n {
		t.Fatal(err)
	}
	return Checksum(data[:n])
}

func TestSelectFileCachedReadsOnlyTheTail(t *testing.T) {
	dir := t.TempDir()
	path, cache := filepath.Join(dir, "log.jsonl"), filepath.Join(dir, "cache")
	var sb strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&sb, `{"id":"r%d"}`+"\n", i)
	}
	os.WriteFile(path, []byte(sb.String()), 0o644)
	if _, _, err := SelectFileCached(path, Query{}, cache); err != nil {
		t.Fatal(err)
	}
	// Corrupt an early line without changing the cache: a cached run that
	// trusted the cache blindly would not notice, but the checksum does.
	data, _ := os.ReadFile(path)
	copy(data[len(`{"id":"`):], "XX") // r0 becomes XX
	os.WriteFile(path, data, 0o644)
	got, _, _ := SelectFileCached(path, Query{}, cache)
	if got[0].ID != "XX" {
		t.Fatalf("a changed prefix was served from the cache: %s", got[0].ID)
	}
}

// TestCachedSelectionNoticesInPlaceRewrites: a log rewritten in place
// (same size, same inode) between two queries of one process is read
// again, not answered from what the first query proved of it.
func TestCachedSelectionNoticesInPlaceRewrites(t *testing.T) {
	dir := t.TempDir()
	path, cache := filepath.Join(dir, "log.jsonl"), filepath.Join(dir, "c", "q")
	os.WriteFile(path, []byte(`{"id":"a"}`+"\n"), 0o644)
	if got, _, err := SelectFileCached(path, Query{}, cache); err != nil || len(got) != 1 || got[0].ID != "a" {
		t.Fatalf("%v %v", got, err)
	}
	f, _ := os.OpenFile(path, os.O_WRONLY, 0)
	f.WriteAt([]byte("b"), 7)
	f.Close()
	if got, _, err := SelectFileCached(path, Query{}, cache); err != nil || len(got) != 1 || got[0].ID != "b" {
		t.Fatalf("an in-place rewrite was hidden: %v %v", got, err)
	}
}

// TestCacheTrustsAQuietStat shows the stat shortcut is taken while the
// file is unchanged, and dropped as soon as it changes: a cache whose
// checksum was doctored is served while the stat holds, and distrusted
// after an append.
func TestCacheTrustsAQuietStat(t *testing.T) {
	defer func(w time.Duration) { racyWindow = w }(racyWindow)
	racyWindow = 0 // every file counts as quiet
	dir := t.TempDir()
	path, cache := filepath.Join(dir, "log.jsonl"), filepath.Join(dir, "c", "q")
	os.WriteFile(path, []byte(`{"id":"r0","v":1}`+"\n"+`{"id":"r1","v":1}`+"\n"), 0o644)
	if _, _, err := SelectFileCached(path, Query{}, cache); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(cache)
	if !strings.Contains(string(raw), `"stat":{`) {
		t.Fatalf("a quiet file's stat was not remembered:\n%s", raw)
	}
	doctored := strings.Replace(string(raw), `{"id":"r0","v":1}`, `{"id":"r0","v":9}`, 1)
	doctored = regexp.MustCompile(`"crc32c":\d+`).ReplaceAllString(doctored, `"crc32c":1`)
	// A cache whose lines do not match their own checksum is damaged, and
	// ignored whatever the stat says.
	os.WriteFile(cache, []byte(doctored), 0o644)
	got, _, _ := SelectFileCached(path, Query{}, cache)
	if string(got[0].Raw) != `{"id":"r0","v":1}` {
		t.Fatalf("a damaged cache was believed: %s", got[0].Raw)
	}
	// Doctored consistently, it is served while the stat holds.
	_, body, _ := strings.Cut(doctored, "\n")
	doctored = regexp.MustCompile(`"body_crc32c":\d+`).ReplaceAllString(doctored, fmt.Sprintf(`"body_crc32c":%d`, Checksum([]byte(body))))
	os.WriteFile(cache, []byte(doctored), 0o644)
	got, _, _ = SelectFileCached(path, Query{}, cache)
	if string(got[0].Raw) != `{"id":"r0","v":9}` {
		t.Fatalf("unchanged stat, but the cache was not used: %s", got[0].Raw)
	}
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"id":"r2","v":1}` + "\n")
	f.Close()
	got, _, _ = SelectFileCached(path, Query{}, cache)
	if len(got) != 3 || string(got[0].Raw) != `{"id":"r0","v":1}` {
		t.Fatalf("after an append the doctored cache was still trusted: %d entries, first %s", len(got), got[0].Raw)
	}
}

// TestCacheDistrustsAFreshStat: a file written a moment ago may be written
// again within the same timestamp tick, so its stat proves nothing yet.
func TestCacheDistrustsAFreshStat(t *testing.T) {
	dir := t.TempDir()
	path, cache := filepath.Join(dir, "log.jsonl"), filepath.Join(dir, "c", "q")
	os.WriteFile(path, []byte(`{"id":"r0"}`+"\n"), 0o644)
	SelectFileCached(path, Query{}, cache)
	raw, _ := os.ReadFile(cache)
	if strings.Contains(string(raw), `"stat"`) {
		t.Fatalf("the stat of a file written just now was remembered:\n%s", raw)
	}
}
