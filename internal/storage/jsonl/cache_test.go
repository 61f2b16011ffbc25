package jsonl

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/base/crc32c"
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
	return crc32c.Checksum(data[:n])
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

// A log rewritten in place at the same size, its mtime set back, is not
// answered from a selection cache of what it held before: whether or not
// its writer keeps an index, the rewrite leaves the index unmatched (the
// ctime moved) and the prefix's checksum catches it. And its index is not
// what proved the cache after the rewrite: the checksum was taken.
func TestSelectionCacheIsNotBelievedAfterARewriteInPlace(t *testing.T) {
	q := Query{Fields: []string{"state"}, Versions: testVersions}
	for _, indexed := range []bool{true, false} {
		t.Run(fmt.Sprint("indexed=", indexed), func(t *testing.T) {
			l, cache := chainLog(t)
			l.Versions = testVersions
			lines := []any{json.RawMessage(versionLine("a", 1, "old")), json.RawMessage(versionLine("b", 2, "old"))}
			if indexed {
				appendRecords(t, l, lines...)
			} else {
				var sb strings.Builder
				for _, line := range lines {
					sb.Write(line.(json.RawMessage))
					sb.WriteByte('\n')
				}
				if err := os.WriteFile(l.Path, []byte(sb.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			summed := 0
			selectNow := cachedSelect(t, l, cache, &summed)
			selectNow("the first read saves the cache")
			summed = 0
			selectNow("the second read answers from it")
			if _, ok := openIndexNow(t, l); ok != indexed {
				t.Fatalf("an index matches the log: %v, want %v", ok, indexed)
			}
			if want := map[bool]int{true: 0, false: 1}[indexed]; summed != want {
				t.Fatalf("%d checksums of the prefix, want %d", summed, want)
			}
			rewriteInPlace(t, l.Path, `"state":"old"}`, `"state":"NEW"}`)
			if _, ok := openIndexNow(t, l); ok {
				t.Fatal("the index still matches the rewritten log")
			}
			summed = 0
			selectNow("after the rewrite") // fails unless the answer is a full scan's
			if summed == 0 {
				t.Fatal("the rewritten prefix was believed without its checksum")
			}
			got, _, err := SelectFileCached(l.Path, q, cache)
			if err != nil || len(got) != 2 || !strings.Contains(string(got[0].Raw), "NEW") {
				t.Fatalf("after the rewrite: %+v %v", got, err)
			}
		})
	}
}

// Appends of every kind (newer and older versions of cached and uncached
// ids, versions the query no longer keeps, lines that are not records)
// read through a cache a few appends behind the log give what a full
// scan gives, whether the log's index or the prefix's checksum proves the
// cached prefix.
func TestSelectFileCachedAfterRandomAppendsMatchesAFullScan(t *testing.T) {
	q := Query{Fields: []string{"state", "to"}, Versions: testVersions,
		Static: func(f [][]byte) bool { return !jsonline.StringEquals(f[1], "bob") },
		Keep:   func(f [][]byte) bool { return !jsonline.StringEquals(f[0], "gone") }}
	for seed := range 12 {
		for _, indexed := range []bool{true, false} {
			rng := rand.New(rand.NewPCG(uint64(seed), 7))
			l, cache := chainLog(t)
			l.Versions = testVersions
			seq := 0
			for step := range 40 {
				var lines []any
				for range 1 + rng.IntN(4) {
					id := fmt.Sprint("id", rng.IntN(12))
					to := []string{"ann", "ann", "bob"}[rng.IntN(3)]
					state := []string{"new", "read", "gone"}[rng.IntN(3)]
					// n keeps two lines apart: of two identical versions,
					// either line is the current one.
					line := fmt.Sprintf(`{"id":%q,"at":"2026-01-01T10:%02d:00Z","state":%q,"to":%q,"n":%d}`, id, rng.IntN(60), state, to, seq)
					seq++
					if rng.IntN(15) == 0 {
						line = `not a record`
					}
					lines = append(lines, json.RawMessage(line))
				}
				records := !slices.ContainsFunc(lines, func(l any) bool { return l.(json.RawMessage)[0] != '{' })
				if indexed && records {
					appendRecords(t, l, lines...)
				} else {
					f, err := os.OpenFile(l.Path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
					if err != nil {
						t.Fatal(err)
					}
					for _, line := range lines {
						fmt.Fprintf(f, "%s\n", line)
					}
					f.Close()
				}
				got, gotProblems, err := SelectFileCached(l.Path, q, cache)
				if err != nil {
					t.Fatal(err)
				}
				want, wantProblems, _ := SelectFile(l.Path, q)
				if !entriesEqual(got, want) || !slices.Equal(gotProblems, wantProblems) {
					t.Fatalf("seed %d indexed %v step %d: cached answer differs from a full scan:\n%s\nwant\n%s",
						seed, indexed, step, describeAnswer(got, gotProblems), describeAnswer(want, wantProblems))
				}
			}
		}
	}
}

func describeAnswer(entries []Entry, problems []Problem) string {
	var sb strings.Builder
	for _, e := range entries {
		fmt.Fprintf(&sb, "  line %d at %d: %s\n", e.Line, e.Offset, e.Raw)
	}
	for _, p := range problems {
		fmt.Fprintf(&sb, "  problem line %d: %s\n", p.Line, p.Msg)
	}
	return sb.String()
}
