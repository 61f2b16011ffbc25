package jsonl

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/base/crc32c"
)

// The cache a cold selection saves is written twice over its entries
// (once for its body's checksum, once as it is written), and a cache
// whose body does not match its checksum is dropped without a word: a
// cold read that saved such a cache would answer right and leave every
// later read as slow as the first. So the cache a cold selection leaves,
// read in windows of a page, lean or not, with a byte order mark, CRLF,
// lines that are not records, lines longer than a window and an
// unterminated last line, is believed by the next read, and answers what
// the cold read did.
func TestAColdSelectionLeavesACacheTheNextReadBelieves(t *testing.T) {
	defer func(w int) { scanWindow = w }(scanWindow)
	scanWindow = os.Getpagesize()
	var b strings.Builder
	b.WriteString("\xef\xbb\xbf")
	for n := range 600 {
		switch {
		case n%97 == 5:
			b.WriteString("not a record\r\n")
		case n%211 == 7:
			fmt.Fprintf(&b, `{"id":"long%d","at":"2026-01-01T10:00:00Z","to":"ann","pad":%q}`+"\r\n", n, strings.Repeat("z", 2*scanWindow+11))
		default:
			fmt.Fprintf(&b, `{"id":"id%d","at":"2026-01-0%dT10:%02d:00Z","to":%q,"state":"new","pad":%q}`+"\r\n",
				n%90, 1+n%9, n%60, []string{"ann", "bob"}[n%2], strings.Repeat("x", n%150))
		}
	}
	b.WriteString(`{"id":"id1","at":"2026-02-01T00:00:00Z","to":"ann"`) // unterminated, cut off
	dir := t.TempDir()
	path := filepath.Join(dir, "log.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	data := []byte(b.String())
	prefix := int64(strings.LastIndexByte(b.String(), '\n') + 1)
	for _, lean := range []bool{false, true} {
		q := Query{Fields: []string{"to", "state"}, Versions: testVersions, Lean: lean}
		cache := filepath.Join(dir, fmt.Sprint("cache-", lean))
		cold, coldProblems, err := SelectFileCached(path, q, cache)
		if err != nil {
			t.Fatal(err)
		}
		if len(cold) == 0 || len(coldProblems) == 0 {
			t.Fatalf("lean %v: the cold read selected %d entries and %d problems; the log holds both", lean, len(cold), len(coldProblems))
		}
		checksum := func(n int64) uint32 { return crc32c.Checksum(data[:n]) }
		hdr, cached, _, ok := readCache(cache, data, path, q, checksum, nil)
		if !ok {
			raw, _ := os.ReadFile(cache)
			t.Fatalf("lean %v: the cache the cold read saved is not believed (%d bytes, header %.200s)", lean, len(raw), raw)
		}
		if hdr.Size != prefix {
			t.Fatalf("lean %v: the cache covers %d bytes, want the %d of the whole lines", lean, hdr.Size, prefix)
		}
		if whole := slices.DeleteFunc(slices.Clone(cold), func(e Entry) bool { return e.Offset >= prefix }); len(cached) != len(whole) {
			t.Fatalf("lean %v: the cache holds %d entries, the cold read %d of whole lines", lean, len(cached), len(whole))
		}
		warm, warmProblems, err := SelectFileCached(path, q, cache)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(warmProblems, coldProblems) || len(warm) != len(cold) {
			t.Fatalf("lean %v: the warm read gave %d entries and %v, the cold %d and %v", lean, len(warm), warmProblems, len(cold), coldProblems)
		}
		for i := range warm {
			w, c := warm[i], cold[i]
			if w.ID != c.ID || w.Line != c.Line || w.Offset != c.Offset || w.Lean != c.Lean || string(w.Raw) != string(c.Raw) ||
				!slices.EqualFunc(w.Fields, c.Fields, func(a, b []byte) bool { return string(a) == string(b) }) {
				t.Fatalf("lean %v: entry %d warm %s line %d %q, cold %s line %d %q", lean, i, w.ID, w.Line, w.Raw, c.ID, c.Line, c.Raw)
			}
		}
	}
}
