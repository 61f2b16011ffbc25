package jsonl

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// sumFold is a Folder for tests: the values of "n" it folded, in order,
// and how it was driven.
type sumFold struct {
	Values     []string `json:"values"`
	adds       int
	resets     int
	loaded     bool
	disbelieve bool // Load says no, as a fold whose times came due does
}

func (f *sumFold) Reset() { f.Values, f.resets = nil, f.resets+1 }
func (f *sumFold) Add(fields [][]byte) {
	f.Values, f.adds = append(f.Values, string(fields[0])), f.adds+1
}
func (f *sumFold) Save() []byte {
	b, _ := json.Marshal(f)
	return b
}
func (f *sumFold) Load(saved []byte) bool {
	if f.disbelieve {
		return false
	}
	f.loaded = true
	return json.Unmarshal(saved, f) == nil
}

var sumQuery = Query{Fields: []string{"n"}}

// foldNow folds l through cache, and fails unless the answer is a fold of
// the whole log from its start.
func foldNow(t *testing.T, l *Log, cache, step string) *sumFold {
	t.Helper()
	f := &sumFold{}
	if err := l.FoldCached(sumQuery, cache, f); err != nil {
		t.Fatalf("%s: %v", step, err)
	}
	fresh := &sumFold{}
	if err := l.foldRead(sumQuery, fresh); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(f.Values, fresh.Values) {
		t.Fatalf("%s: folded %v through the cache, %v from the start", step, f.Values, fresh.Values)
	}
	return f
}

func writeLines(t *testing.T, path string, lines ...string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
}

func appendBytes(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// A fold read again after appends folds only the appended lines into the
// saved fold, and gives what a fold from the start gives, whether the
// log's index or the prefix's checksum proves the saved prefix; an
// unterminated last line is folded but not saved, and lines that are not
// records are passed over.
func TestFoldCachedFoldsOnlyWhatWasAppended(t *testing.T) {
	for _, indexed := range []bool{true, false} {
		t.Run(fmt.Sprint("indexed=", indexed), func(t *testing.T) {
			l, _ := chainLog(t)
			cache := filepath.Join(l.CacheDir, "q.fold")
			add := func(ns ...int) {
				for _, n := range ns {
					if indexed {
						appendRecords(t, l, map[string]any{"id": fmt.Sprint("r", n%3), "n": n})
					} else {
						appendBytes(t, l.Path, fmt.Sprintf(`{"id":"r%d","n":%d}`+"\n", n%3, n))
					}
				}
			}
			if !indexed {
				writeLines(t, l.Path)
			}
			if f := foldNow(t, l, cache, "no lines"); f.adds != 0 {
				t.Fatalf("an empty log folded %d lines", f.adds)
			}
			add(1, 2, 3)
			if f := foldNow(t, l, cache, "first read"); f.adds != 3 || f.loaded {
				t.Fatalf("first read: %d lines folded, loaded %v; want 3, no cache", f.adds, f.loaded)
			}
			if f := foldNow(t, l, cache, "nothing new"); f.adds != 0 || !f.loaded || f.resets != 0 {
				t.Fatalf("unchanged log: %d lines folded, loaded %v, %d resets; want the cache alone", f.adds, f.loaded, f.resets)
			}
			add(4, 5)
			if f := foldNow(t, l, cache, "two appended"); f.adds != 2 || !f.loaded {
				t.Fatalf("after two appends: %d lines folded, loaded %v; want 2 from the cache", f.adds, f.loaded)
			}
			appendBytes(t, l.Path, "not json\n\n")
			if indexed {
				appendRecords(t, l, map[string]any{"id": "r9", "n": 6})
			} else {
				appendBytes(t, l.Path, `{"id":"r9","n":6}`+"\n")
			}
			if f := foldNow(t, l, cache, "a bad line among"); f.adds != 1 {
				t.Fatalf("a bad line, a blank one and a record: %d lines folded, want 1", f.adds)
			}
			appendBytes(t, l.Path, `{"id":"r7","n":7}`) // still being written
			for range 2 {
				if f := foldNow(t, l, cache, "an unterminated line"); f.adds != 1 || f.Values[len(f.Values)-1] != "7" {
					t.Fatalf("an unterminated line: %d folded (%v), want it alone, every read", f.adds, f.Values)
				}
			}
			appendBytes(t, l.Path, "\n")
			if f := foldNow(t, l, cache, "the line finished"); f.adds != 1 {
				t.Fatalf("the finished line: %d folded, want 1", f.adds)
			}
			if f := foldNow(t, l, cache, "saved with it"); f.adds != 0 {
				t.Fatalf("after the finished line was saved: %d folded, want 0", f.adds)
			}
		})
	}
}

// A saved fold is not believed when the log no longer starts with the
// prefix it covers (rewritten in place at the same size, compacted
// shorter, replaced by a longer one), when the cache is damaged, or when
// the folder declines it: the log is folded again from its start.
func TestFoldCacheIsNotBelievedAfterARewriteOrDamage(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, l *Log, cache string)
		refuse bool // the folder declines what it saved
	}{
		{"rewritten in place", func(t *testing.T, l *Log, _ string) {
			rewriteInPlace(t, l.Path, `"n":2}`, `"n":8}`)
		}, false},
		{"compacted shorter", func(t *testing.T, l *Log, _ string) {
			writeLines(t, l.Path, `{"id":"a","n":3}`+"\n")
		}, false},
		{"replaced by a longer log with another start", func(t *testing.T, l *Log, _ string) {
			writeLines(t, l.Path, `{"id":"z","n":9}`+"\n", `{"id":"a","n":1}`+"\n", `{"id":"b","n":2}`+"\n", `{"id":"a","n":3}`+"\n")
		}, false},
		{"a byte of the fold changed", func(t *testing.T, _ *Log, cache string) {
			// A value ("3" becomes "2"): still valid JSON, only the
			// checksum tells.
			editFile(t, cache, func(b []byte) []byte { b[len(b)-4] ^= 1; return b })
		}, false},
		{"the fold cut short", func(t *testing.T, _ *Log, cache string) {
			editFile(t, cache, func(b []byte) []byte { return b[:len(b)-4] })
		}, false},
		{"the header alone", func(t *testing.T, _ *Log, cache string) {
			editFile(t, cache, func(b []byte) []byte { return b[:strings.IndexByte(string(b), '\n')+1] })
		}, false},
		{"not a cache", func(t *testing.T, _ *Log, cache string) {
			editFile(t, cache, func([]byte) []byte { return []byte("{}\n{}") })
		}, false},
		{"another version", func(t *testing.T, _ *Log, cache string) {
			editFile(t, cache, func(b []byte) []byte {
				return []byte(strings.Replace(string(b), `"v":1`, `"v":9`, 1))
			})
		}, false},
		{"the folder declines it", func(*testing.T, *Log, string) {}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, _ := chainLog(t)
			cache := filepath.Join(l.CacheDir, "q.fold")
			appendRecords(t, l, map[string]any{"id": "a", "n": 1}, map[string]any{"id": "b", "n": 2}, map[string]any{"id": "a", "n": 3})
			foldNow(t, l, cache, "before")
			tc.change(t, l, cache)
			f := &sumFold{disbelieve: tc.refuse}
			if err := l.FoldCached(sumQuery, cache, f); err != nil {
				t.Fatal(err)
			}
			fresh := &sumFold{}
			if err := l.foldRead(sumQuery, fresh); err != nil {
				t.Fatal(err)
			}
			if f.resets != 1 || !slices.Equal(f.Values, fresh.Values) {
				t.Fatalf("folded %v (%d resets); want %v folded from the start", f.Values, f.resets, fresh.Values)
			}
			foldNow(t, l, cache, "the fold saved again")
		})
	}
}

func editFile(t *testing.T, path string, edit func([]byte) []byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, edit(b), 0o644); err != nil {
		t.Fatal(err)
	}
}
