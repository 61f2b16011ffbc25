package precommit

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/format/schema"
)

// memoOf is the memo entry of the blob the index holds at path.
func (f *fixture) memoOf(t *testing.T, path string) (string, blobMemo, bool) {
	t.Helper()
	id := strings.TrimSpace(f.git(t, "rev-parse", ":"+path))
	m, ok := readMemo(memoDir(filepath.Join(f.repo, ".git")), id)
	return id, m, ok
}

func TestTheMemoRemembersWhatTheHookProved(t *testing.T) {
	f := newFixture(t)
	committed := lines(msg(1, 0), msg(2, 0))
	f.stage(t, map[string]string{logPath: committed})
	if res := f.run(t, "ann"); res.Refused() {
		t.Fatalf("a valid log refused: %+v", res)
	}
	id, m, ok := f.memoOf(t, logPath)
	if !ok || m.Size != int64(len(committed)) || m.Sum != checksums([]byte(committed)) || m.Clean != "queen-message" || m.Binary == "" {
		t.Fatalf("memo of %s: %+v (found %v); want its size, checksums, and clean as queen-message by this binary", id, m, ok)
	}
	f.commit(t, map[string]string{logPath: committed})

	// An invalid blob is remembered by size and checksums, never as clean.
	f.stage(t, map[string]string{logPath: committed + "not json\n"})
	if res := f.run(t, "ann"); len(res.Invalid) != 1 {
		t.Fatalf("invalid: %+v", res.Invalid)
	}
	if _, m, ok := f.memoOf(t, logPath); ok && m.Clean != "" {
		t.Fatalf("an invalid blob was remembered as clean: %+v", m)
	}
}

// What another binary proved is not believed, nor a damaged entry, nor
// an entry whose checksums do not match the committed bytes.
func TestTheMemoIsNotBelievedBlindly(t *testing.T) {
	f := newFixture(t)
	committed := lines(msg(1, 0), msg(2, 0))
	f.stage(t, map[string]string{logPath: committed})
	f.run(t, "ann")
	f.commit(t, map[string]string{logPath: committed})
	dir := memoDir(filepath.Join(f.repo, ".git"))
	headID := strings.TrimSpace(f.git(t, "rev-parse", "HEAD:"+logPath))

	// A staged log that is invalid, with a forged entry saying another
	// binary found it clean: validated again, and refused.
	bad := committed + "not json\n"
	f.stage(t, map[string]string{logPath: bad})
	badID := strings.TrimSpace(f.git(t, "rev-parse", ":"+logPath))
	forged, _ := json.Marshal(blobMemo{Size: int64(len(bad)), Sum: checksums([]byte(bad)), Clean: "queen-message", Binary: "another-build"})
	if err := os.WriteFile(filepath.Join(dir, badID+".json"), forged, 0o644); err != nil {
		t.Fatal(err)
	}
	if res := f.run(t, "ann"); len(res.Invalid) != 1 {
		t.Fatalf("a clean verdict of another binary was believed: invalid %+v", res.Invalid)
	}

	// A line of the committed log changed in place, with HEAD's entry
	// damaged, or with checksums of other bytes: the full check runs and
	// finds the rewrite.
	edited := strings.Replace(committed, "message 1", "edited 1", 1) + lines(msg(3, 0))
	for name, entry := range map[string][]byte{
		"damaged": []byte("{not json"),
		"wrong checksums": func() []byte {
			b, _ := json.Marshal(blobMemo{Size: int64(len(committed)), Sum: [2]uint32{1, 2}})
			return b
		}(),
	} {
		if err := os.WriteFile(filepath.Join(dir, headID+".json"), entry, 0o644); err != nil {
			t.Fatal(err)
		}
		f.stage(t, map[string]string{logPath: edited})
		if res := f.run(t, "ann"); len(res.Rewrites) == 0 {
			t.Errorf("%s entry for HEAD's log: the in-place edit passed", name)
		}
	}
}

// With the committed log's digest, only the appended lines are validated,
// and the hook reports what a full validation reports: the same problems
// on the same lines.
func TestAppendsAreValidatedAgainstTheDigest(t *testing.T) {
	committed := lines(msg(1, 0), msg(2, 0), msg(3, 0))
	stale := strings.Replace(msg(2, 0), "{", "{ ", 1) // msg 2 again, other bytes, no newer
	tails := map[string]string{
		"valid":                lines(msg(4, 0), msg(1, 1)),
		"a committed line":     lines(msg(4, 0), msg(2, 0)),
		"a stale version":      lines(stale),
		"not json":             lines("not json", msg(5, 0)),
		"a repeat in the tail": lines(msg(4, 0), msg(4, 0)),
	}
	for name, tail := range tails {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			f.stage(t, map[string]string{logPath: committed})
			f.run(t, "ann")
			f.commit(t, map[string]string{logPath: committed})
			dir := memoDir(filepath.Join(f.repo, ".git"))
			headID := strings.TrimSpace(f.git(t, "rev-parse", "HEAD:"+logPath))
			if _, ok := readDigest(dir, headID); !ok {
				t.Fatal("no digest of the committed log")
			}
			f.stage(t, map[string]string{logPath: committed + tail})
			withDigest := f.run(t, "ann")
			if name == "valid" {
				// Its checksums continued from HEAD's: they must be the
				// staged bytes' own.
				if _, m, ok := f.memoOf(t, logPath); !ok || m.Sum != checksums([]byte(committed+tail)) || m.Size != int64(len(committed+tail)) {
					t.Fatalf("memo of the appended log: %+v (found %v)", m, ok)
				}
			}
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
			whole := f.run(t, "ann")
			if !reflect.DeepEqual(withDigest.Invalid, whole.Invalid) || !reflect.DeepEqual(withDigest.Rewrites, whole.Rewrites) {
				t.Errorf("with the digest: %+v %+v\nwhole: %+v %+v", withDigest.Invalid, withDigest.Rewrites, whole.Invalid, whole.Rewrites)
			}
			if name != "valid" && len(whole.Invalid) == 0 {
				t.Errorf("%s passed validation", name)
			}
		})
	}
}

// A log's digests do not pile up: a path keeps HEAD's and the staged one.
func TestAPathKeepsTwoDigests(t *testing.T) {
	f := newFixture(t)
	log := lines(msg(1, 0))
	dir := memoDir(filepath.Join(f.repo, ".git"))
	for i := 2; i <= 5; i++ {
		f.stage(t, map[string]string{logPath: log})
		if res := f.run(t, "ann"); res.Refused() {
			t.Fatalf("refused: %+v", res)
		}
		f.commit(t, map[string]string{logPath: log})
		log += lines(msg(i, 0))
	}
	digests, _ := filepath.Glob(filepath.Join(dir, "*.digest"))
	head := strings.TrimSpace(f.git(t, "rev-parse", "HEAD:"+logPath))
	if len(digests) != 2 || !slices.Contains(digests, digestPath(dir, head)) {
		t.Errorf("digests %v; want two, HEAD's (%s) among them", digests, head)
	}
}

// The directory keeps the newest maxDigests digests, also in a repository
// whose path holds glob characters (a pattern over the path matched
// nothing there, and nothing was ever removed).
func TestDigestsArePrunedUnderAGlobLikePath(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "g[1]", ".git", "queen-cache", "blobs")
	for i := range maxDigests + 3 {
		writeDigest(dir, fmt.Sprintf("log%d.jsonl", i), "", fmt.Sprintf("%040d", i), &schema.Digest{})
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".digest") {
			n++
		}
	}
	if n != maxDigests {
		t.Errorf("%d digests kept, want %d", n, maxDigests)
	}
}
