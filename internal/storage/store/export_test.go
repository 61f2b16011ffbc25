package store

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// exportTwin exports one store into two directories: inc as the command
// does (by the mark when it can), full with the mark removed first, which
// is the export as it was before marks. They must write the same bytes.
type exportTwin struct {
	t         *testing.T
	s         *Store
	inc, full string
	byMark    int
	exports   int
}

func newExportTwin(t *testing.T) *exportTwin {
	x := &exportTwin{t: t, s: liveStore(t), inc: t.TempDir(), full: t.TempDir()}
	old := exportedByMark
	exportedByMark = func(target string) {
		if filepath.Dir(target) == x.inc {
			x.byMark++
		}
	}
	t.Cleanup(func() { exportedByMark = old })
	return x
}

func (x *exportTwin) target(dir string) string { return filepath.Join(dir, records.MessagesFile) }

// export runs both exports and compares what they did.
func (x *exportTwin) export(step string) ExportStats {
	x.t.Helper()
	if err := os.Remove(x.s.exportMarkPath(x.target(x.full))); err != nil && !os.IsNotExist(err) {
		x.t.Fatal(err)
	}
	x.exports++
	got, err := x.s.Export(x.inc, []string{records.MessagesFile})
	if err != nil {
		x.t.Fatalf("%s: export: %v", step, err)
	}
	want, err := x.s.Export(x.full, []string{records.MessagesFile})
	if err != nil {
		x.t.Fatalf("%s: full export: %v", step, err)
	}
	g, w := got[0], want[0]
	if g.Records != w.Records || g.Written != w.Written {
		x.t.Fatalf("%s: the export by mark says %d records, %d written; the full export %d, %d", step, g.Records, g.Written, w.Records, w.Written)
	}
	gb, _ := os.ReadFile(x.target(x.inc))
	wb, _ := os.ReadFile(x.target(x.full))
	if !bytes.Equal(gb, wb) {
		x.t.Fatalf("%s: the files differ\nby mark:\n%s\nfull:\n%s", step, gb, wb)
	}
	return g
}

// appendSource appends lines to a source: through the store's lock and
// append chain (ours), or as another program does.
func (x *exportTwin) appendSource(path string, ours bool, lines ...string) {
	x.t.Helper()
	if ours {
		err := x.s.Update(func(tx *jsonl.Tx) error {
			recs := make([]any, len(lines))
			for i, l := range lines {
				recs[i] = []byte(l)
			}
			return tx.Append(&jsonl.Log{Path: path, Versions: records.Versions, CacheDir: x.s.CacheDir(), NoSync: true}, recs...)
		})
		if err != nil {
			x.t.Fatal(err)
		}
		return
	}
	appendRaw(x.t, path, lines...)
}

func appendRaw(t *testing.T, path string, lines ...string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		if _, err := f.WriteString(l + "\n"); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// rewrite gives path a new inode with the bytes edit makes of its own;
// a missing file stays missing.
func rewrite(t *testing.T, path string, edit func([]byte) []byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	tmp := path + ".new"
	if err := os.WriteFile(tmp, edit(data), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// firstLines is the first n lines of b.
func firstLines(b []byte, n int) []byte {
	end := 0
	for range n {
		i := bytes.IndexByte(b[end:], '\n')
		if i < 0 {
			break
		}
		end += i + 1
	}
	return b[:end]
}

// message is a version of message id that obeys every rule
// (records.CheckVersion), as the export writes only those.
func message(id int, at time.Time, body string) string {
	return fmt.Sprintf(`{"id":"qm-01KB000000000000000000%04d","created_at":"2026-01-01T00:00:00Z","updated_at":%q,"from":"ann","to":"bob","subject":"s","body":%q,"importance":"normal","read":false}`,
		id, at.UTC().Format(time.RFC3339Nano), body)
}

func TestExportByMarkWritesWhatAFullExportWrites(t *testing.T) {
	for seed := range uint64(6) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 1))
			x := newExportTwin(t)
			local := x.s.Log(records.MessagesFile).Path
			received := ReceivedPath(x.s.WS, records.MessagesFile)
			base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
			clock := 0
			tick := func() time.Time { clock++; return base.Add(time.Duration(clock) * time.Second) }
			// current[id] is the newest time written for id, so that the
			// steps can write stale versions and ties on purpose.
			current := map[int]time.Time{}
			ids := 0
			var exportOnly []int
			x.appendSource(local, true, message(0, tick(), "first"))
			current[0] = base.Add(time.Second)
			ids = 1
			x.appendSource(received, true, message(1, tick(), "first"))
			current[1] = base.Add(2 * time.Second)
			ids = 2
			x.export("first export")
			for step := range 60 {
				src := local
				if rng.IntN(3) == 0 {
					src = received
				}
				ours := rng.IntN(4) != 0
				id := rng.IntN(ids)
				var what string
				switch op := rng.IntN(16); op {
				case 0, 1, 2:
					what = "a new record"
					at := tick()
					x.appendSource(src, ours, message(ids, at, "new"))
					current[ids] = at
					ids++
				case 3, 4:
					what = "a newer version"
					at := tick()
					x.appendSource(src, ours, message(id, at, fmt.Sprint("v", step)))
					current[id] = at
				case 5:
					what = "a stale version (a sync brought an old one)"
					x.appendSource(src, ours, message(id, current[id].Add(-time.Hour), "stale"))
				case 14:
					what = "the export files reset to an earlier version (git reset, stash, checkout)"
					keep := rng.IntN(5)
					for _, dir := range []string{x.inc, x.full} {
						rewrite(t, x.target(dir), func(b []byte) []byte { return firstLines(b, keep) })
					}
				case 15:
					what = "the export files removed (a worktree removed, git rm)"
					for _, dir := range []string{x.inc, x.full} {
						if err := os.Remove(x.target(dir)); err != nil && !os.IsNotExist(err) {
							t.Fatal(err)
						}
					}
				case 13:
					what = "a record the export file had first"
					if len(exportOnly) > 0 {
						x.appendSource(src, ours, message(exportOnly[rng.IntN(len(exportOnly))], tick(), "from the store"))
					}
				case 12:
					what = "a version a millisecond older than the newest"
					x.appendSource(src, ours, message(id, current[id].Add(-time.Millisecond), "just older"))
				case 6:
					what = "a tie: the same time, other bytes"
					x.appendSource(src, ours, message(id, current[id], fmt.Sprint("tie", step)))
				case 7:
					what = "a line that is not a record"
					x.appendSource(src, false, "not a record")
				case 8:
					what = "another program appended to the export files"
					at := tick()
					line := message(id, at, "written to the export")
					if rng.IntN(2) == 0 {
						line = message(ids+1000, at, "only in the export")
						exportOnly = append(exportOnly, ids+1000)
					} else {
						current[id] = at // the version the sources must beat
					}
					appendRaw(t, x.target(x.inc), line)
					appendRaw(t, x.target(x.full), line)
				case 9:
					what = "the export file rewritten with the same bytes"
					rewrite(t, x.target(x.inc), func(b []byte) []byte { return b })
				case 10:
					what = "a source rewritten with the same bytes"
					rewrite(t, src, func(b []byte) []byte { return b })
				case 11:
					what = "a source compacted (its first line dropped)"
					rewrite(t, src, func(b []byte) []byte { return b[bytes.IndexByte(b, '\n')+1:] })
				}
				if rng.IntN(3) != 0 {
					x.export(fmt.Sprintf("step %d, after %s", step, what))
				}
			}
			x.export("last export")
			t.Logf("%d of %d exports by mark", x.byMark, x.exports)
			if x.byMark == 0 {
				t.Fatal("no export read only what was appended")
			}
		})
	}
}

func TestExportByMarkReadsOnlyWhatWasAppended(t *testing.T) {
	x := newExportTwin(t)
	local := x.s.Log(records.MessagesFile).Path
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	var lines []string
	for i := range 100 {
		lines = append(lines, message(i, base.Add(time.Duration(i)*time.Second), "old"))
	}
	x.appendSource(local, true, lines...)
	x.export("first")
	x.appendSource(local, true, message(100, base.Add(time.Hour), "new"))
	before := x.byMark
	if st := x.export("after one message"); st.Written != 1 || st.Records != 101 {
		t.Fatalf("after one message: %+v", st)
	}
	if x.byMark != before+1 {
		t.Fatal("the export after one appended message read the whole store")
	}
	if st := x.export("nothing new"); st.Written != 0 || st.Records != 101 {
		t.Fatalf("nothing new: %+v", st)
	}
}

// The export file's index, kept by the export's appends, places the
// file's versions and vouches that the file is what the mark says: one
// that is damaged, cut short, stale or missing is not believed.
func TestExportDistrustsADamagedIndex(t *testing.T) {
	x := newExportTwin(t)
	local := x.s.Log(records.MessagesFile).Path
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	x.appendSource(local, true, message(1, base, "one"), message(2, base, "two"))
	x.export("first")
	index := jsonl.IndexPath(x.s.CacheDir(), x.target(x.inc))
	earlier, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	damage := []struct {
		what string
		edit func([]byte) []byte
	}{
		{"an append's record cut short (a kill while it was written)", func(b []byte) []byte { return b[:len(b)-5] }},
		{"a byte of an entry changed", func(b []byte) []byte { b[len(b)-8]++; return b }},
		{"the index of the file as an earlier export left it", func([]byte) []byte { return earlier }},
		{"emptied", func([]byte) []byte { return nil }},
		{"the sorted entries' byte changed", func(b []byte) []byte { b[len(b)/2]++; return b }},
	}
	for i, d := range damage {
		x.appendSource(local, true, message(1, base.Add(time.Duration(i+1)*time.Hour), d.what))
		rewrite(t, index, d.edit)
		before := x.byMark
		x.export(d.what) // compares with the full export
		if x.byMark != before {
			t.Fatalf("%s: the export trusted the index", d.what)
		}
		x.appendSource(local, true, message(3+i, base, "after "+d.what))
		x.export("after " + d.what)
		if x.byMark != before+1 {
			t.Fatalf("after %s: the export after the full one did not read only what was appended", d.what)
		}
	}
	if err := os.Remove(index); err != nil {
		t.Fatal(err)
	}
	before := x.byMark
	x.export("the index removed")
	if x.byMark != before {
		t.Fatal("the export without the file's index read only what was appended")
	}
}

// An export killed after it appended to the file, before it replaced the
// mark, leaves a mark of the file as it was: the next export is a full one.
func TestExportKilledBeforeItsMarkStartsOver(t *testing.T) {
	x := newExportTwin(t)
	local := x.s.Log(records.MessagesFile).Path
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	x.appendSource(local, true, message(1, base, "one"))
	x.export("first")
	markPath := x.s.exportMarkPath(x.target(x.inc))
	mark, err := os.ReadFile(markPath)
	if err != nil {
		t.Fatal(err)
	}
	x.appendSource(local, true, message(2, base, "two"))
	x.export("second")
	if err := os.WriteFile(markPath, mark, 0o644); err != nil { // as if killed before the mark
		t.Fatal(err)
	}
	x.appendSource(local, true, message(3, base, "three"), message(1, base.Add(time.Hour), "one, later"))
	before := x.byMark
	if st := x.export("after the kill"); st.Records != 3 || st.Written != 2 {
		t.Fatalf("after the kill: %+v", st)
	}
	if x.byMark != before {
		t.Fatal("the export trusted a mark of the file before the last export's lines")
	}
}

// A received log that appears or goes between exports changes the union:
// the mark of the other sources does not describe it.
func TestExportWhenReceivedLogsComeAndGo(t *testing.T) {
	x := newExportTwin(t)
	local := x.s.Log(records.MessagesFile).Path
	received := ReceivedPath(x.s.WS, records.MessagesFile)
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	x.appendSource(local, true, message(1, base, "local"))
	x.export("local only")
	x.appendSource(received, true, message(2, base, "received"), message(1, base.Add(time.Hour), "received, newer"))
	before := x.byMark
	if st := x.export("a received log appeared"); st.Records != 2 || st.Written != 2 || x.byMark != before {
		t.Fatalf("a received log appeared: %+v, by mark %v", st, x.byMark != before)
	}
	if err := os.Remove(received); err != nil {
		t.Fatal(err)
	}
	x.appendSource(local, true, message(3, base, "local again"))
	if st := x.export("the received log went"); st.Records != 2 || st.Written != 1 || x.byMark != before {
		t.Fatalf("the received log went: %+v, by mark %v", st, x.byMark != before)
	}
}

// Exports and appends racing each other, as droids run them, leave the
// file with what one export after them all would write.
func TestExportsRacingAppendsLoseNothing(t *testing.T) {
	s := liveStore(t)
	dir := t.TempDir()
	local := s.Log(records.MessagesFile)
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for w := range 4 {
		wg.Go(func() {
			for i := range 25 {
				id := w*100 + i%10 // new records, then new versions of them
				line := message(id, base.Add(time.Duration(w*1000+i)*time.Second), fmt.Sprint("w", w, " i", i))
				if err := s.Update(func(tx *jsonl.Tx) error { return tx.Append(local, []byte(line)) }); err != nil {
					errs <- err
					return
				}
				if _, err := s.Export(dir, []string{records.MessagesFile}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	last, err := s.Export(dir, []string{records.MessagesFile})
	if err != nil {
		t.Fatal(err)
	}
	if last[0].Written != 0 || last[0].Records != 40 {
		t.Fatalf("an export after the race: %+v, want nothing to write of 40 records", last[0])
	}
	// The file's current versions are the store's.
	fresh := t.TempDir()
	if _, err := s.Export(fresh, []string{records.MessagesFile}); err != nil {
		t.Fatal(err)
	}
	current := func(dir string) map[string]string {
		data, err := os.ReadFile(filepath.Join(dir, records.MessagesFile))
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, r := range jsonl.Materialize(data, "", "", records.Versions).Records {
			out[r.ID] = string(r.Raw)
		}
		return out
	}
	got, want := current(dir), current(fresh)
	if len(got) != len(want) {
		t.Fatalf("the raced file holds %d ids, the store %d", len(got), len(want))
	}
	for id, raw := range want {
		if got[id] != raw {
			t.Errorf("%s: the raced file's current version is %s, the store's %s", id, got[id], raw)
		}
	}
}

// A source or the export file that another program wrote has an index
// that no longer matches it: the export after is a full one, and leaves
// the index rebuilt, so that the one after that reads only what was
// appended even when nothing else was written in between.
func TestExportAfterAnotherProgramWroteRebuildsTheIndex(t *testing.T) {
	x := newExportTwin(t)
	local := x.s.Log(records.MessagesFile).Path
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	x.appendSource(local, true, message(1, base, "one"))
	x.export("first")
	writes := []struct {
		what  string
		write func()
	}{
		{"a source appended to by another program", func() { appendRaw(t, local, message(2, base, "two")) }},
		{"a source compacted (rewritten)", func() { rewrite(t, local, func(b []byte) []byte { return b[bytes.IndexByte(b, '\n')+1:] }) }},
		{"the export file rewritten with the same bytes (a checkout)", func() { rewrite(t, x.target(x.inc), func(b []byte) []byte { return b }) }},
		{"the export file appended to by another program", func() { appendRaw(t, x.target(x.inc), message(3, base, "only in the file")) }},
	}
	for _, w := range writes {
		w.write()
		if w.what == "the export file appended to by another program" {
			appendRaw(t, x.target(x.full), message(3, base, "only in the file"))
		}
		before := x.byMark
		x.export(w.what)
		if x.byMark != before {
			t.Fatalf("%s: the export trusted an index the write left stale", w.what)
		}
		x.export("again after " + w.what)
		if x.byMark != before+1 {
			t.Fatalf("%s: the second export after it did not read only what was appended", w.what)
		}
	}
}

// An id only the export file holds (another program wrote it there) is
// not one of the store's records until a source holds it: the count by
// mark follows the full export's.
func TestExportCountsAnIDOnlyInTheFileOnceASourceHoldsIt(t *testing.T) {
	x := newExportTwin(t)
	local := x.s.Log(records.MessagesFile).Path
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	x.appendSource(local, true, message(1, base, "one"))
	x.export("first")
	for _, dir := range []string{x.inc, x.full} {
		appendRaw(t, x.target(dir), message(7, base.Add(time.Hour), "only in the file"))
	}
	if st := x.export("an id only in the file"); st.Records != 1 || st.Written != 0 {
		t.Fatalf("an id only in the file: %+v", st)
	}
	steps := []struct {
		line           string
		records, wrote int
	}{
		{message(7, base, "older than the file's"), 2, 0},
		{message(7, base.Add(2*time.Hour), "newer than the file's"), 2, 1},
		{message(8, base, "another"), 3, 1},
	}
	for _, s := range steps {
		before := x.byMark
		x.appendSource(local, true, s.line)
		if st := x.export(s.line); st.Records != s.records || st.Written != s.wrote || x.byMark != before+1 {
			t.Fatalf("after %s: %+v by mark %v, want %d records, %d written, by mark", s.line, st, x.byMark != before, s.records, s.wrote)
		}
	}
}

// An export after more writes than a log's index remembers (its ring of
// the last appends) still reads only what was appended: the bytes since
// the mark prove that the source starts with what the mark accounted for.
func TestExportAfterManyWritesIsByMark(t *testing.T) {
	x := newExportTwin(t)
	local := x.s.Log(records.MessagesFile).Path
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	x.appendSource(local, true, message(0, base, "first"))
	x.export("the first export")
	for i := range 150 {
		x.appendSource(local, true, message(1+i%40, base.Add(time.Duration(1+i)*time.Second), fmt.Sprint("w", i)))
	}
	before := x.byMark
	if st := x.export("after 150 writes"); st.Written != 40 {
		t.Fatalf("wrote %d versions, want the 40 ids written since", st.Written)
	}
	if x.byMark != before+1 {
		t.Fatal("the export after 150 writes compared every record again")
	}
}
