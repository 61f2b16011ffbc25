package jsonl

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
)

// lookups is the line the log's index places for each of ids, and that
// version's time. (Not the offset: of byte-identical versions, a rebuild
// places the last, an append the first, as a load does.)
func lookups(t *testing.T, l *Log, ids []string) map[string]string {
	t.Helper()
	ix, ok := openIndexNow(t, l)
	if !ok {
		t.Fatal("no index matches the log")
	}
	defer ix.Close()
	data, err := os.ReadFile(l.Path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, id := range ids {
		off, nanos, found, err := ix.Lookup(id)
		if err != nil || !found {
			t.Fatalf("%q: found %v, %v", id, found, err)
		}
		line, _ := readLine(data, off)
		out[id] = fmt.Sprint(nanos, " ", string(line))
	}
	return out
}

// An appender that is told the ids and times of what it appends (rightly,
// not at all, or with an id the line does not hold) keeps the index a
// rebuild from the log would write: in batches of many ids and repeats,
// ties of time, updates of the index on the way and at the end, on a new
// log and on one its writer indexed before (versions its sorted part holds
// met while merging).
func TestAppenderIndexesAsARebuildWould(t *testing.T) {
	defer func(n int) { appenderEntriesMax = n }(appenderEntriesMax)
	for _, v := range []*jsonline.Versions{nil, testVersions} {
		for _, most := range []int{1 << 18, 700} {
			for _, before := range []int{0, 3, 1200} {
				t.Run(fmt.Sprintf("versions=%v/most=%d/before=%d", v != nil, most, before), func(t *testing.T) {
					appenderEntriesMax = most
					l := indexedLog(t, v)
					rng := rand.New(rand.NewPCG(1, uint64(most+before)))
					var ids []string
					for i := range 1500 {
						ids = append(ids, fmt.Sprintf("msg-%d", i))
					}
					// Versions already in the index's sorted part (one
					// append: one merge), which older ones must not displace.
					var first []any
					for i := range before {
						first = append(first, []byte(versionLine(ids[i], 1, "before")))
					}
					appendRecords(t, l, first...)
					err := l.Lock.Do(func(tx *Tx) error {
						a, err := tx.Appender(l)
						if err != nil {
							return err
						}
						for batch := range 4 {
							var lines [][]byte
							var known []Known
							for i := range 900 {
								id, minute := ids[rng.IntN(len(ids))], rng.IntN(3)
								line := []byte(versionLine(id, minute, fmt.Sprint(batch, i%5)))
								at, _ := time.Parse(time.RFC3339, fmt.Sprintf("2026-01-01T10:%02d:00Z", minute))
								k := Known{ID: id, At: at}
								switch i % 7 {
								case 0:
									k = Known{} // not known: read
								case 1:
									k.ID = "msg-x" + id // not the line's: read
								}
								lines, known = append(lines, line), append(known, k)
							}
							if batch == 2 {
								known = nil
							}
							if err := a.Append(lines, known); err != nil {
								return err
							}
						}
						return a.Close()
					})
					if err != nil {
						t.Fatal(err)
					}
					checkIndex(t, l, "after the appender")
					st, err := l.Load()
					if err != nil {
						t.Fatal(err)
					}
					var all []string
					for _, r := range st.Records {
						all = append(all, r.ID)
					}
					kept := lookups(t, l, all)
					if err := os.Remove(IndexPath(l.CacheDir, l.Path)); err != nil {
						t.Fatal(err)
					}
					appendRecords(t, l) // no index: rebuilt from the log
					rebuilt := lookups(t, l, all)
					for _, id := range all {
						if kept[id] != rebuilt[id] {
							t.Fatalf("%s: the appender's index says %v, a rebuild %v", id, kept[id], rebuilt[id])
						}
					}
				})
			}
		}
	}
}

// An append writes each line with its newline, in order, whatever the
// size of the pieces it writes them in (one byte, a few lines, all), and
// the index it keeps matches the log it wrote.
func TestAppenderWritesEachLineThenItsNewline(t *testing.T) {
	defer func(n int) { appendPiece = n }(appendPiece)
	for _, piece := range []int{1, 100, 1 << 20} {
		t.Run(fmt.Sprint(piece), func(t *testing.T) {
			appendPiece = piece
			l := indexedLog(t, testVersions)
			var lines [][]byte
			var want []byte
			for i := range 50 {
				line := []byte(versionLine(fmt.Sprintf("msg-%d", i%20), i%3, fmt.Sprint(i)))
				lines, want = append(lines, line), append(append(want, line...), '\n')
			}
			err := l.Lock.Do(func(tx *Tx) error {
				a, err := tx.Appender(l)
				if err != nil {
					return err
				}
				if err := a.Append(lines[:1], nil); err != nil {
					return err
				}
				if err := a.Append(lines[1:], nil); err != nil {
					return err
				}
				return a.Close()
			})
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(l.Path); string(got) != string(want) {
				t.Fatalf("the log holds\n%s\nwant\n%s", got, want)
			}
			checkIndex(t, l, "after the appender")
		})
	}
}

// spellsString finds a string between quotes only, wherever it is.
func TestSpellsString(t *testing.T) {
	for _, c := range []struct {
		line, s string
		want    bool
	}{
		{`{"id":"msg-1"}`, "msg-1", true},
		{`{"id":"msg-12"}`, "msg-1", false},
		{`{"id":"xmsg-1"}`, "msg-1", false},
		{`{"to":"msg-12","id":"msg-1"}`, "msg-1", true},
		{`{"id":msg-1}`, "msg-1", false},
		{`msg-1"`, "msg-1", false},
		{`"msg-1`, "msg-1", false},
		{`"msg-1"`, "msg-1", true},
		{`""`, "x", false},
	} {
		if got := spellsString([]byte(c.line), c.s); got != c.want {
			t.Errorf("spellsString(%s, %q) = %v, want %v", c.line, c.s, got, c.want)
		}
	}
}

// What is not one line holding a JSON object is refused before anything
// is written.
func TestAppenderRefusesWhatIsNotOneLineOfAnObject(t *testing.T) {
	for _, bad := range []string{"", "{", `{"id":"a"}` + "\n" + `{"id":"b"}`, `{"id":"a",` + "\r" + `"x":1}`, `["a"]`, `"{}"`} {
		l := indexedLog(t, testVersions)
		appendRecords(t, l, []byte(versionLine("a", 1, "x")))
		want, _ := os.ReadFile(l.Path)
		err := l.Lock.Do(func(tx *Tx) error {
			a, err := tx.Appender(l)
			if err != nil {
				return err
			}
			defer a.Close()
			return a.Append([][]byte{[]byte(versionLine("b", 1, "x")), []byte(bad)}, nil)
		})
		if err == nil {
			t.Errorf("%q: appended", bad)
		}
		if got, _ := os.ReadFile(l.Path); string(got) != string(want) {
			t.Errorf("%q: the log changed to %q", bad, got)
		}
		checkIndex(t, l, fmt.Sprintf("after %q", bad))
	}
}

// sortEntries orders as a comparison sort does, with uniform keys and
// with keys that all share their top bits.
func TestSortEntriesSortsByKeyThenOffset(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	for _, n := range []int{0, 5, 1023, 1024, 5000} {
		for _, shared := range []bool{false, true} {
			es := make([]indexEntry, n)
			for i := range es {
				es[i] = indexEntry{key: idKey{rng.Uint64(), rng.Uint64() % 4}, offset: rng.Int64N(1000)}
				if shared {
					es[i].key[0] &= 0xffff
				}
				if i%3 == 0 && i > 0 {
					es[i].key = es[i-1].key // repeats
				}
			}
			want := slices.Clone(es)
			slices.SortFunc(want, func(a, b indexEntry) int { return cmp.Or(a.key.compare(b.key), cmp.Compare(a.offset, b.offset)) })
			sortEntries(es)
			if !slices.Equal(es, want) {
				t.Fatalf("n=%d shared=%v: not sorted", n, shared)
			}
		}
	}
}
