package precommit

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const (
	logPath     = ".beads/queen_messages.jsonl"
	archivePath = ".beads/queen_messages_archive.jsonl"
)

// A committed log only grows, except by git-queen's own rewrites:
// compaction (an older version goes, a later one stays) and archive
// (every version of a record moves to the _archive log, staged with it).
// While a merge is under way, new lines may sit among old ones.
func TestCommittedLinesAreFacts(t *testing.T) {
	a1, a2, a3, b1, c1 := msg(1, 0), msg(1, 1), msg(1, 2), msg(2, 0), msg(3, 0)
	tests := []struct {
		name      string
		committed []string
		staged    []string
		archive   []string // staged archive log, nil for none
		merging   bool
		rewrites  []int // line numbers reported
	}{
		{name: "appended", committed: []string{a1, b1}, staged: []string{a1, b1, c1}},
		{name: "a new log", staged: []string{a1, b1}},
		{name: "compacted: an older version dropped", committed: []string{a1, b1, a2}, staged: []string{b1, a2}},
		{name: "compacted, the current version not last", committed: []string{a2, b1, a1}, staged: []string{a2, b1}},
		{name: "archived", committed: []string{a1, b1, a2}, staged: []string{b1}, archive: []string{a1, a2}},
		{name: "compacted, then archived", committed: []string{a1, b1, a2}, staged: []string{b1}, archive: []string{a2}},
		{name: "a line gone without an archive", committed: []string{a1, b1}, staged: []string{b1}, rewrites: []int{1}},
		{name: "the current version gone", committed: []string{a1, b1, a2}, staged: []string{a1, b1}, rewrites: []int{3}},
		{name: "a line changed in place", committed: []string{a1, b1, c1}, staged: []string{a1, strings.Replace(b1, "message 2", "edited", 1), c1},
			rewrites: []int{2, 2}},
		{name: "a line inserted among committed ones", committed: []string{a1, b1}, staged: []string{a1, c1, b1}, rewrites: []int{2}},
		// git stash pop, checkout -m, cherry-pick -n and merge --squash
		// run the merge driver, which puts a version older than a
		// committed one before it, and leave no sign of a merge.
		{name: "an older version put before a newer committed one", committed: []string{a1, b1, a3}, staged: []string{a1, b1, a2, a3}},
		{name: "an older version changed in place", committed: []string{a1, b1, a3},
			staged: []string{strings.Replace(a1, "message 1", "edited", 1), b1, a3}, rewrites: []int{1}},
		{name: "a line inserted during a merge", committed: []string{a1, b1}, staged: []string{a1, c1, b1}, merging: true},
		{name: "a loss during a merge", committed: []string{a1, b1}, staged: []string{a1, c1}, merging: true, rewrites: []int{2}},
		{name: "a line that is not a record gone", committed: []string{a1, "not json", b1}, staged: []string{a1, b1}, rewrites: []int{2}},
	}
	for _, tt := range tests {
		for _, layout := range []struct{ memo, packed bool }{{false, false}, {true, false}, {false, true}} {
			memo := layout.memo
			t.Run(fmt.Sprintf("%s/memo=%v/packed=%v", tt.name, memo, layout.packed), func(t *testing.T) {
				f := newFixture(t)
				if tt.committed != nil {
					if memo {
						// The hook checked the committed log when it was
						// staged, and remembers what it proved of it.
						f.stage(t, map[string]string{logPath: lines(tt.committed...)})
						f.run(t, "ann")
					}
					f.commit(t, map[string]string{logPath: lines(tt.committed...)})
					if layout.packed {
						// HEAD's blob is streamed out of a pack.
						f.git(t, "gc", "-q")
					}
				}
				staged := map[string]string{logPath: lines(tt.staged...)}
				if tt.archive != nil {
					staged[archivePath] = lines(tt.archive...)
				}
				f.stage(t, staged)
				if tt.merging {
					mergeHead := filepath.Join(f.repo, ".git", "MERGE_HEAD")
					if err := os.WriteFile(mergeHead, []byte(f.git(t, "rev-parse", "HEAD")+"\n"), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				res := f.run(t, "ann")
				var got []int
				for _, r := range res.Rewrites {
					got = append(got, r.Line)
					if r.Path != logPath || r.Msg == "" {
						t.Errorf("rewrite %+v", r)
					}
				}
				slices.Sort(got)
				if !slices.Equal(got, tt.rewrites) {
					t.Errorf("rewrites on lines %v, want %v: %+v", got, tt.rewrites, res.Rewrites)
				}
				if want := tt.rewrites != nil; res.Refused() != want {
					t.Errorf("refused %v, want %v (invalid: %+v)", res.Refused(), want, res.Invalid)
				}
			})
		}
	}
}

// The staged content of every known format is validated: the index, not
// the working tree.
func TestStagedJSONLIsValidated(t *testing.T) {
	good := msg(1, 0)
	tests := []struct {
		name    string
		path    string
		content string
		invalid bool
	}{
		{name: "valid", path: logPath, content: lines(good, msg(2, 0))},
		{name: "a torn line", path: logPath, content: lines(good, `{"id":"qm-`), invalid: true},
		{name: "conflict markers", path: logPath, content: lines("<<<<<<< HEAD", good, "=======", msg(2, 0), ">>>>>>> b"), invalid: true},
		{name: "a union-merge duplicate", path: logPath, content: lines(good, good), invalid: true},
		{name: "a record the schema refuses", path: logPath, content: lines(strings.Replace(good, `"to":"bob"`, `"to":"@all"`, 1)), invalid: true},
		{name: "CRLF", path: logPath, content: good + "\r\n" + msg(2, 0) + "\r\n"},
		{name: "a byte order mark", path: logPath, content: "\ufeff" + lines(good)},
		{name: "no final newline", path: logPath, content: good},
		{name: "beads issues with a bad line", path: ".beads/issues.jsonl", content: lines(`{"id":"bd-1","title":"x","status":"open","priority":1,"issue_type":"task","created_at":"2026-11-22T12:00:00Z","updated_at":"2026-11-22T12:00:00Z"}`, "{"), invalid: true},
		{name: "an unknown file", path: "notes.jsonl", content: "not json\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.stage(t, map[string]string{tt.path: tt.content})
			// The working tree says something else: only the index counts.
			if err := os.WriteFile(filepath.Join(f.repo, tt.path), []byte(lines(msg(9, 0))+"{broken\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			res := f.run(t, "ann")
			if got := len(res.Invalid) > 0; got != tt.invalid {
				t.Fatalf("invalid %v, want %v: %+v", got, tt.invalid, res.Invalid)
			}
			if tt.invalid && (res.Invalid[0].Path != tt.path || len(res.Invalid[0].Problems) == 0) {
				t.Errorf("invalid %+v", res.Invalid[0])
			}
			if res.Refused() != tt.invalid {
				t.Errorf("refused %v", res.Refused())
			}
		})
	}
}

// Deleting a log is not validated (there is nothing staged to read); the
// deletion itself is no rewrite the check looks at.
func TestDeletedLogIsNotRead(t *testing.T) {
	f := newFixture(t)
	f.commit(t, map[string]string{logPath: lines(msg(1, 0))})
	f.git(t, "rm", "-q", logPath)
	if res := f.run(t, "ann"); res.Refused() {
		t.Errorf("a deleted log was refused: %+v", res)
	}
}
