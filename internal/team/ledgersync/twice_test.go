package ledgersync

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/base/ids"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/format/schema"
	"github.com/git-queen/git-queen/internal/gitrepo/object"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/storage/store"
	"github.com/git-queen/git-queen/internal/testgit"
)

// craft is a teammate with push access writing the ledger by hand in the
// clone at dir: a commit on parent whose tree is parent's with each of
// chunks (a path in the ledger's tree, such as
// "messages/2026-11/000/01.jsonl") holding its lines, pushed to origin's
// ledger over whatever is there. The commit is dated at when.
func craft(t *testing.T, dir string, parent object.ID, when time.Time, chunks map[string][][]byte) object.ID {
	t.Helper()
	index := filepath.Join(t.TempDir(), "index")
	date := when.Format(time.RFC3339)
	git := func(stdin []byte, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_INDEX_FILE="+index, "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
		cmd.Stdin = bytes.NewReader(stdin)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %s: %v", strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(out))
	}
	git(nil, "read-tree", parent.String())
	for path, lines := range chunks {
		blob := git(joinLines(lines), "hash-object", "-w", "--stdin")
		git(nil, "update-index", "--add", "--cacheinfo", "100644,"+blob+","+path)
	}
	commit := git(nil, "commit-tree", "-p", parent.String(), "-m", "by hand", git(nil, "write-tree"))
	testgit.Run(t, dir, "push", "-q", "-f", "origin", commit+":"+ledger.Ref)
	id, ok := object.ParseHex(commit)
	if !ok {
		t.Fatalf("commit-tree printed %q, not an object id", commit)
	}
	return id
}

// tip is the clone's ledger.
func (c *clone) tip(t *testing.T) object.ID {
	t.Helper()
	tip, err := c.sy.ledger.Refs().Read(ledger.Ref)
	if err != nil {
		t.Fatal(err)
	}
	return tip
}

// received is the clone's received messages log.
func (c *clone) received(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(store.ReceivedPath(c.s.WS, records.MessagesFile))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return data
}

// current is the version of id that this clone's readers take.
func (c *clone) current(t *testing.T, id string) string {
	t.Helper()
	e, ok, err := c.s.Get(records.MessagesFile, id)
	if err != nil || !ok {
		t.Fatalf("get %s: %v %v", id, ok, err)
	}
	return string(e.Raw)
}

// soundReceived fails the test when the received log holds a line twice,
// or anything else the validator (and so doctor's stores check) reports.
func soundReceived(t *testing.T, who string, c *clone) {
	t.Helper()
	data := c.received(t)
	seen := map[string]bool{}
	for line := range bytes.Lines(data) {
		if seen[string(line)] {
			t.Errorf("%s's received log holds twice: %s", who, bytes.TrimSpace(line))
		}
		seen[string(line)] = true
	}
	if res := schema.ValidateFile(".beads/"+records.MessagesFile, data, schema.Options{Limit: 1}); !res.Valid() {
		t.Errorf("%s's received log: line %d: %s", who, res.Problems[0].Line, res.Problems[0].Message)
	}
}

// A version the ledger carries twice, byte for byte (in two chunks of one
// tree, in two commits of one chunk, or twice in one chunk), is appended
// to received/ once, whether it arrives in the sync that joins the ledger
// or in a later one, and whether this clone holds it as received or as
// its own. It used to be appended again (only an older time was
// refused), and doctor's stores check failed on the received log's
// repeated line.
func TestAVersionTheLedgerCarriesTwiceIsAppliedOnce(t *testing.T) {
	base := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	const first, second = "messages/2026-11/000/00.jsonl", "messages/2026-11/000/01.jsonl"
	cases := []struct {
		name string
		// before says whether b syncs before the second copy comes (else
		// it joins the ledger with both in it); own, whether b wrote the
		// version (else a did).
		before, own bool
		// again is the tree's chunks with the second copy, given the
		// honest chunk's lines.
		again func(line []byte, honest [][]byte) map[string][][]byte
	}{
		{"in two chunks of one tree, joined", false, false, func(line []byte, honest [][]byte) map[string][][]byte {
			return map[string][][]byte{second: {line}}
		}},
		{"in two chunks of one tree, a sync later", true, false, func(line []byte, honest [][]byte) map[string][][]byte {
			return map[string][][]byte{second: {line}}
		}},
		{"in one chunk, twice, joined", false, false, func(line []byte, honest [][]byte) map[string][][]byte {
			return map[string][][]byte{first: append(honest, line)}
		}},
		{"in one chunk, twice, a sync later", true, false, func(line []byte, honest [][]byte) map[string][][]byte {
			return map[string][][]byte{first: append(honest, line)}
		}},
		{"its own version, in another chunk", true, true, func(line []byte, honest [][]byte) map[string][][]byte {
			return map[string][][]byte{second: {line}}
		}},
		// A merge that meets a version out of its month holds every
		// version it applies (scopedApplied), read back from received/.
		{"in an earlier month's chunk, joined", false, false, func(line []byte, honest [][]byte) map[string][][]byte {
			return map[string][][]byte{"messages/2026-10/000/00.jsonl": {line}}
		}},
		{"in an earlier month's chunk, a sync later", true, false, func(line []byte, honest [][]byte) map[string][][]byte {
			return map[string][][]byte{"messages/2026-10/000/00.jsonl": {line}}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRemote(t)
			c := &clock{base.Add(time.Hour)}
			a, b := newClone(t, r, c), newClone(t, r, c)
			id := ids.NewMessage()
			line := messageAt(id, base.Add(time.Second), "once")
			writer := a
			if tc.own {
				writer = b
			}
			writer.write(t, records.MessagesFile, line)
			writer.sync(t)
			if tc.before {
				b.sync(t)
			}
			a.sync(t)
			all, err := a.sy.ledger.All(a.tip(t))
			if err != nil {
				t.Fatal(err)
			}
			craft(t, a.dir, a.tip(t), c.t, tc.again(line, all[records.MessagesFile]))
			res := b.sync(t)
			if n := bytes.Count(b.received(t), line); tc.own && n != 0 || !tc.own && n != 1 {
				t.Errorf("b's received log holds the version %d times", n)
			}
			if tc.before && res.Received["messages"] != 0 {
				t.Errorf("the second copy counted as received: %v", res.Received)
			}
			soundReceived(t, "b", b)
			// And once more, from a clone that merges the hand-written
			// ledger with its own.
			a.sync(t)
			soundReceived(t, "a", a)
			if got := b.current(t, id); got != string(line) {
				t.Errorf("b reads %s", got)
			}
		})
	}
}

// Versions of one record with equal times and different bytes: the larger
// bytes win on every clone, whichever order the clones receive them in
// (one sync after another, or two chunks of one join, in either order),
// and neither is applied twice, not even when the ledger carries the
// smaller again after both, nor when the receiving clone wrote one of
// them itself. A version with the smaller bytes is not applied once the
// larger is held (received, or in the clone's own log), as an older one
// is not.
func TestEqualTimesWinByTheirBytesInEveryOrder(t *testing.T) {
	base := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	chunks := []string{"messages/2026-11/000/01.jsonl", "messages/2026-11/000/02.jsonl", "messages/2026-11/000/03.jsonl"}
	id := ids.NewMessage()
	at := base.Add(time.Second)
	small, large := messageAt(id, at, "a small"), messageAt(id, at, "b large")
	if bytes.Compare(small, large) >= 0 {
		t.Fatal("the versions are not in the order the test needs")
	}
	cases := []struct {
		name string
		// order is what the ledger brings, a commit a step; join says
		// whether the receiving clone takes every step in one sync
		// (else one sync a step).
		order [][]byte
		join  bool
		// own, when set, is the version the receiving clone wrote
		// itself, before the steps (in its own log, not received/).
		own []byte
		// want is how many times received/ holds small and large.
		wantSmall, wantLarge int
	}{
		{"the smaller first, a sync each", [][]byte{small, large}, false, nil, 1, 1},
		{"the larger first, a sync each", [][]byte{large, small}, false, nil, 0, 1},
		{"the smaller first, joined", [][]byte{small, large}, true, nil, 1, 1},
		{"the larger first, joined", [][]byte{large, small}, true, nil, 0, 1},
		{"the smaller again after both, a sync each", [][]byte{small, large, small}, false, nil, 1, 1},
		{"the smaller again after both, joined", [][]byte{small, large, small}, true, nil, 1, 1},
		{"the larger again after both, a sync each", [][]byte{small, large, large}, false, nil, 1, 1},
		{"the larger again after both, joined", [][]byte{large, small, large}, true, nil, 0, 1},
		{"the larger its own, the smaller received", [][]byte{small}, false, large, 0, 0},
		{"the smaller its own, the larger received, then its own again", [][]byte{large, small}, false, small, 0, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRemote(t)
			c := &clock{base.Add(time.Hour)}
			mal, b := newClone(t, r, c), newClone(t, r, c)
			mal.send(t, "ann", "bob", "first")
			mal.sync(t)
			if tc.own != nil {
				b.write(t, records.MessagesFile, tc.own)
			}
			if !tc.join {
				b.sync(t)
			}
			tip := mal.tip(t)
			for i, line := range tc.order {
				tip = craft(t, mal.dir, tip, c.t, map[string][][]byte{chunks[i]: {line}})
				if !tc.join {
					b.sync(t)
				}
			}
			if tc.join {
				b.sync(t)
			}
			got := b.received(t)
			if n, m := bytes.Count(got, small), bytes.Count(got, large); n != tc.wantSmall || m != tc.wantLarge {
				t.Errorf("received/ holds the smaller %d times and the larger %d times, want %d and %d", n, m, tc.wantSmall, tc.wantLarge)
			}
			soundReceived(t, "b", b)
			if got := b.current(t, id); got != string(large) {
				t.Errorf("b reads %s, want the larger", got)
			}
		})
	}
}

// The same, when the received log that holds the version has lost its
// index (or the index cannot be rebuilt): the log is read once, and the
// version found there by its place.
func TestAVersionCarriedTwiceIsFoundInALogWithoutItsIndex(t *testing.T) {
	base := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	r := newRemote(t)
	c := &clock{base.Add(time.Hour)}
	a, b := newClone(t, r, c), newClone(t, r, c)
	id := ids.NewMessage()
	line := messageAt(id, base.Add(time.Second), "once")
	a.send(t, "ann", "bob", "first") // so that the version is not at offset 0
	a.write(t, records.MessagesFile, line)
	a.sync(t)
	b.sync(t)
	l := b.s.ReceivedLog(records.MessagesFile)
	// A directory where the index goes: it can be neither read nor
	// rebuilt.
	path := jsonl.IndexPath(l.CacheDir, l.Path)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	craft(t, a.dir, a.tip(t), c.t, map[string][][]byte{"messages/2026-11/000/01.jsonl": {line}})
	b.sync(t)
	if n := bytes.Count(b.received(t), line); n != 1 {
		t.Errorf("b's received log holds the version %d times", n)
	}
	soundReceived(t, "b", b)
}
