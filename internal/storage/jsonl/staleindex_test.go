package jsonl

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// staleIndexLog is a log its writer indexed, with a selection cache of
// it saved, that another program then appended to: its index is stale.
func staleIndexLog(t *testing.T) (*Log, string, Query) {
	t.Helper()
	l, cache := chainLog(t)
	l.Versions = testVersions
	q := Query{Fields: []string{"state"}, Versions: testVersions}
	appendRecords(t, l, json.RawMessage(versionLine("a", 1, "new")), json.RawMessage(versionLine("b", 2, "new")))
	if _, _, err := l.SelectCached(q, cache); err != nil {
		t.Fatal(err)
	}
	appendForeign(t, l.Path)
	if _, ok := openIndexNow(t, l); ok {
		t.Fatal("the index matches a log another program appended to")
	}
	return l, cache, q
}

// readMatchesAScan reads the log through its cache as a store does, and
// fails unless the answer is a full scan's.
func readMatchesAScan(t *testing.T, l *Log, q Query, cache, step string) {
	t.Helper()
	if diff := readAgainstAScan(l, q, cache); diff != "" {
		t.Fatalf("%s: %s", step, diff)
	}
}

// readAgainstAScan is readMatchesAScan's read, for any goroutine: it
// says how the answer differs from a full scan's, "" when it does not.
func readAgainstAScan(l *Log, q Query, cache string) string {
	got, _, err := l.SelectCached(q, cache)
	if err != nil {
		return err.Error()
	}
	want, _, _ := SelectFile(l.Path, q)
	if !entriesEqual(got, want) || len(got) != 3 {
		return "selected\n" + describeAnswer(got, nil) + "want\n" + describeAnswer(want, nil)
	}
	return ""
}

// The first read after another program appended to a log rebuilds its
// index under the free lock, so that the next read is proved by the
// index, without a checksum of the prefix; so does a visit.
func TestAReadAfterAForeignAppendRebuildsTheIndex(t *testing.T) {
	for _, visit := range []bool{false, true} {
		l, cache, q := staleIndexLog(t)
		if visit {
			n := 0
			if _, err := l.VisitCached(q, cache, func(*Entry) error { n++; return nil }); err != nil || n != 3 {
				t.Fatalf("visited %d entries, %v", n, err)
			}
		} else {
			readMatchesAScan(t, l, q, cache, "the read after the foreign append")
		}
		checkIndex(t, l, "after the read")
		summed := 0
		cachedSelect(t, l, cache, &summed)("the next read")
		if summed != 0 {
			t.Fatalf("visit %v: the next read took %d checksums of the prefix, want none: the index proves it", visit, summed)
		}
	}
}

// A read while another process holds the lock does not wait for it, is
// correct, and leaves the index stale (nothing rebuilds it without the
// lock); the first read after the holder is gone rebuilds it.
func TestAReadWhileTheLockIsHeldDoesNotWait(t *testing.T) {
	l, cache, q := staleIndexLog(t)
	l.Lock.Timeout = time.Hour // a read that waited would pass the bound below
	holder := helperCommand(t, "hold", l.Path, l.Lock.Path, "h", "0")
	out, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer holder.Process.Kill()
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "locked\n" {
		t.Fatalf("holder said %q", line)
	}
	done := make(chan string)
	go func() { done <- readAgainstAScan(l, q, cache) }()
	select {
	case diff := <-done:
		if diff != "" {
			t.Fatalf("a read while the lock is held: %s", diff)
		}
	case <-time.After(2 * time.Minute): // an upper bound only a wait for the holder reaches
		t.Fatal("a read waited for the process holding the lock")
	}
	if _, ok := openIndexNow(t, l); ok {
		t.Fatal("the index was rebuilt while another process held the lock")
	}
	holder.Process.Kill()
	holder.Wait()
	readMatchesAScan(t, l, q, cache, "a read after the holder died")
	checkIndex(t, l, "after the holder died")
}

// A read inside this process's own hold of the lock (a check-then-append
// reads under it) neither waits for itself nor rebuilds the index.
func TestAReadInsideTheLockDoesNotWaitForItself(t *testing.T) {
	l, cache, q := staleIndexLog(t)
	l.Lock.Timeout = time.Hour
	done := make(chan string)
	go func() {
		var diff string
		err := l.Lock.Do(func(*Tx) error { diff = readAgainstAScan(l, q, cache); return nil })
		if err != nil {
			diff = err.Error()
		}
		done <- diff
	}()
	select {
	case diff := <-done:
		if diff != "" {
			t.Fatalf("a read inside the lock: %s", diff)
		}
	case <-time.After(2 * time.Minute): // an upper bound only a wait for the lock reaches
		t.Fatal("a read inside the lock waited for it")
	}
	if _, ok := openIndexNow(t, l); ok {
		t.Fatal("the index was rebuilt by a read that did not take the lock")
	}
}

// A read whose cache directory cannot be written (a read-only repository)
// reads correctly, reads again correctly, and leaves the index stale.
func TestAReadWithAReadOnlyCacheDirIsCorrect(t *testing.T) {
	l, cache, q := staleIndexLog(t)
	readOnly(t, l.CacheDir)
	for _, step := range []string{"the first read", "the second read"} {
		readMatchesAScan(t, l, q, cache, step)
	}
	if _, ok := openIndexNow(t, l); ok {
		t.Fatal("an index was written in a read-only directory")
	}
}

// readOnly makes dir refuse new files until the test ends: by its mode,
// or, for root, whom modes do not stop, by the immutable attribute.
func readOnly(t *testing.T, dir string) {
	t.Helper()
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	if writable(dir) {
		if out, err := exec.Command("chattr", "+i", dir).CombinedOutput(); err != nil {
			t.Skipf("cannot make %s read-only for this user: chattr: %v %s", dir, err, out)
		}
		t.Cleanup(func() { exec.Command("chattr", "-i", dir).Run() })
	}
	if f, err := os.Create(filepath.Join(dir, "probe")); err == nil {
		f.Close()
		t.Fatalf("%s still takes new files", dir)
	}
}

// Under the lock, an index another program's appends left behind is
// brought up to date in place (a record appended to its file, not a new
// file), and then places every id's current version where a full load
// does, whatever was appended: newer and older versions, lines that are
// not records, a line that starts with a byte order mark. A log rewritten
// in place is indexed anew.
func TestReindexCatchesUpWithAppendsOfAnotherProgram(t *testing.T) {
	for seed := range 8 {
		rng := rand.New(rand.NewPCG(uint64(seed), 11))
		l := indexedLog(t, testVersions)
		appendRecords(t, l, json.RawMessage(versionLine("id0", 30, "new")))
		// Brought up to date in place, the index file keeps its bytes and
		// gains a record; rebuilt, its header changes.
		indexFile := func() []byte {
			b, err := os.ReadFile(IndexPath(l.CacheDir, l.Path))
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
		for step := range 30 {
			before := indexFile()
			// A rewrite, or a first appended line that starts with a byte
			// order mark (line 1 of the appended bytes, where a BOM is
			// allowed), means a new index.
			rewrite := rng.IntN(10) == 0
			if rewrite {
				rewriteInPlace(t, l.Path, `"at":"2026-01-01T10:`, `"at":"2026-01-01T11:`)
			} else {
				f, err := os.OpenFile(l.Path, os.O_WRONLY|os.O_APPEND, 0)
				if err != nil {
					t.Fatal(err)
				}
				for i := range 1 + rng.IntN(4) {
					line := versionLine(fmt.Sprint("id", rng.IntN(8)), rng.IntN(60), "s"+fmt.Sprint(step))
					switch rng.IntN(12) {
					case 0:
						line = "not a record"
					case 1:
						line = "\ufeff" + line
						rewrite = rewrite || i == 0
					}
					fmt.Fprintln(f, line)
				}
				f.Close()
			}
			if err := l.Lock.Do(func(tx *Tx) error { tx.Reindex(l); return nil }); err != nil {
				t.Fatal(err)
			}
			checkIndex(t, l, fmt.Sprintf("seed %d step %d", seed, step))
			after := indexFile()
			if inPlace := len(after) > len(before) && bytes.HasPrefix(after, before); inPlace == rewrite {
				t.Fatalf("seed %d step %d: a new index expected %v, but the index was brought up to date in place: %v", seed, step, rewrite, inPlace)
			}
		}
	}
}

// An append after another program's brings the index up to date in
// place, as a reader's Reindex does, rather than rebuilding it from the
// whole log; the index then places every id where a full load does.
func TestAnAppendAfterAForeignAppendCatchesTheIndexUp(t *testing.T) {
	l := indexedLog(t, testVersions)
	appendRecords(t, l, json.RawMessage(versionLine("id0", 30, "new")))
	indexFile := func() []byte {
		b, err := os.ReadFile(IndexPath(l.CacheDir, l.Path))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	before := indexFile()
	appendForeign(t, l.Path)
	appendRecords(t, l, json.RawMessage(versionLine("id1", 31, "ours")))
	checkIndex(t, l, "an append after a foreign one")
	if after := indexFile(); len(after) <= len(before) || !bytes.HasPrefix(after, before) {
		t.Fatal("the append rebuilt the index, where it covered a prefix of the log")
	}
}

// An index whose last record a crash tore is brought up to date by a new
// file, not by a record after the torn bytes, which no reader could
// reach: the reader's Reindex and the next append each leave an index
// that matches the log.
func TestAnIndexWithATornRecordIsCaughtUpIntoANewFile(t *testing.T) {
	for _, next := range []string{"a reader's Reindex", "an append"} {
		l := indexedLog(t, testVersions)
		appendRecords(t, l, json.RawMessage(versionLine("a", 1, "new")))
		appendRecords(t, l, json.RawMessage(versionLine("a", 2, "read")))
		path := IndexPath(l.CacheDir, l.Path)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data[:len(data)-5], 0o644); err != nil {
			t.Fatal(err)
		}
		if next == "an append" {
			appendRecords(t, l, json.RawMessage(versionLine("b", 1, "new")))
		} else if err := l.Lock.Do(func(tx *Tx) error { tx.Reindex(l); return nil }); err != nil {
			t.Fatal(err)
		}
		checkIndex(t, l, "a torn record, then "+next)
	}
}
