package ledger

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	gitobject "github.com/git-queen/git-queen/internal/gitrepo/object"
	"github.com/git-queen/git-queen/internal/gitrepo/refs"
	"github.com/git-queen/git-queen/internal/testgit"
)

func open(t *testing.T) (*Ledger, string) {
	t.Helper()
	testgit.Isolate(t)
	repo := testgit.Init(t)
	l, err := Open(filepath.Join(repo, ".git"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l, repo
}

var sig = Signature{Name: "ann", Email: "ann@git-queen", When: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}

// msg is a message version written at the given time.
func msg(id string, at time.Time, extra string) []byte {
	return fmt.Appendf(nil, `{"id":%q,"created_at":%q,"updated_at":%q,"subject":%q}`, id,
		at.Format(time.RFC3339Nano), at.Format(time.RFC3339Nano), extra)
}

func lines(l *Ledger, t *testing.T, commit gitobject.ID, file string) []string {
	t.Helper()
	all, err := l.All(commit)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range all[file] {
		out = append(out, string(line))
	}
	return out
}

func TestRecordAppendsToTheMonthsLastChunk(t *testing.T) {
	l, repo := open(t)
	nov := time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)
	oct := time.Date(2026, 10, 30, 0, 0, 0, 0, time.UTC)
	c1, err := l.Record(gitobject.ZeroID, Lines{records.MessagesFile: {msg("qm-1", nov, "a"), msg("qm-2", oct, "b")}}, sig, "first")
	if err != nil {
		t.Fatal(err)
	}
	c2, err := l.Record(c1, Lines{records.MessagesFile: {msg("qm-3", nov, "c")}}, sig, "second")
	if err != nil {
		t.Fatal(err)
	}
	// git itself reads what go-git wrote, and sees the layout.
	ls := testgit.Run(t, repo, "ls-tree", "-r", "--name-only", c2.String())
	want := "FORMAT\nmessages/2026-10/000/00.jsonl\nmessages/2026-11/000/00.jsonl"
	if ls != want {
		t.Fatalf("tree:\n%s\nwant:\n%s", ls, want)
	}
	if got := testgit.Run(t, repo, "show", c2.String()+":messages/2026-11/000/00.jsonl"); got != string(msg("qm-1", nov, "a"))+"\n"+string(msg("qm-3", nov, "c")) {
		t.Fatalf("chunk: %s", got)
	}
	testgit.Run(t, repo, "fsck", "--strict", "--no-dangling")
	if again, err := l.Record(c2, Lines{}, sig, "nothing"); err != nil || again != c2 {
		t.Fatalf("recording nothing made %s (%v), want %s", again, err, c2)
	}
}

func TestChunksRollOverAndTreesStaySmall(t *testing.T) {
	l, repo := open(t)
	at := time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)
	var batch [][]byte
	for i := range 3000 {
		batch = append(batch, msg(fmt.Sprintf("qm-%05d", i), at, strings.Repeat("x", 400)))
	}
	var c gitobject.ID
	var err error
	for i := 0; i < len(batch); i += 250 {
		if c, err = l.Record(c, Lines{records.MessagesFile: batch[i : i+250]}, sig, "batch"); err != nil {
			t.Fatal(err)
		}
	}
	got := lines(l, t, c, records.MessagesFile)
	if len(got) != len(batch) {
		t.Fatalf("%d lines back, want %d", len(got), len(batch))
	}
	for i := range got {
		if got[i] != string(batch[i]) {
			t.Fatalf("line %d differs", i)
		}
	}
	paths := strings.Split(testgit.Run(t, repo, "ls-tree", "-r", "-l", c.String()), "\n")
	if len(paths) < 3000*460/ChunkSize {
		t.Fatalf("only %d chunks for %d bytes", len(paths), 3000*460)
	}
	for _, p := range paths {
		f := strings.Fields(p)
		if f[3] == "FORMAT" {
			continue
		}
		var size int
		fmt.Sscan(f[3], &size)
		if size > ChunkSize+1024 {
			t.Fatalf("chunk %s is %d bytes, over %d", f[4], size, ChunkSize)
		}
	}
	if !strings.Contains(testgit.Run(t, repo, "ls-tree", "-r", "--name-only", c.String()), "messages/2026-11/000/10.jsonl") {
		t.Fatal("expected chunks numbered past 9 in the first subtree")
	}
}

func TestMergeIsAUnionAndTheSameBothWays(t *testing.T) {
	l, repo := open(t)
	at := time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)
	base, err := l.Record(gitobject.ZeroID, Lines{records.MessagesFile: {msg("qm-1", at, "base")}}, sig, "base")
	if err != nil {
		t.Fatal(err)
	}
	ours, _ := l.Record(base, Lines{
		records.MessagesFile:     {msg("qm-2", at.Add(time.Second), "ours")},
		records.ReservationsFile: {[]byte(`{"id":"qr-1","updated_at":"2026-11-03T00:00:05Z"}`)},
	}, sig, "ours")
	theirs, _ := l.Record(base, Lines{records.MessagesFile: {
		msg("qm-3", at.Add(2*time.Second), "theirs"),
		msg("qm-2", at.Add(time.Second), "ours"), // the same version, recorded there too
	}}, sig, "theirs")
	m1, err := l.Merge(ours, theirs, sig, "merge")
	if err != nil {
		t.Fatal(err)
	}
	m2, err := l.Merge(theirs, ours, sig, "merge")
	if err != nil {
		t.Fatal(err)
	}
	t1, _ := l.TreeOf(m1)
	t2, _ := l.TreeOf(m2)
	if t1 != t2 {
		t.Fatalf("merging in the two directions gave different trees %s and %s", t1, t2)
	}
	got := lines(l, t, m1, records.MessagesFile)
	slices.Sort(got)
	want := []string{string(msg("qm-1", at, "base")), string(msg("qm-2", at.Add(time.Second), "ours")), string(msg("qm-3", at.Add(2*time.Second), "theirs"))}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("merged messages:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := len(lines(l, t, m1, records.ReservationsFile)); n != 1 {
		t.Fatalf("%d reservations after the merge, want 1", n)
	}
	if out := testgit.Run(t, repo, "rev-list", "--parents", "-n1", m1.String()); out != m1.String()+" "+ours.String()+" "+theirs.String() {
		t.Fatalf("parents: %s", out)
	}

	d, err := l.Changes(ours, m1)
	if err != nil {
		t.Fatal(err)
	}
	if d.Removed || d.Added.Count() != 1 || string(d.Added[records.MessagesFile][0]) != want[2] {
		t.Fatalf("changes from ours to the merge: %+v", d)
	}
	if d, _ := l.Changes(m1, ours); !d.Removed {
		t.Fatal("going back from the merge to ours should report removed lines")
	}
}

func TestMergeRefusesAnUnknownFormat(t *testing.T) {
	l, _ := open(t)
	ours, _ := l.Record(gitobject.ZeroID, Lines{records.MessagesFile: {msg("qm-1", sig.When, "a")}}, sig, "ours")
	root, _ := l.TreeOf(ours)
	tr, _ := l.readTree(root)
	h, _ := l.writeBlob([]byte("git-queen ledger 9\n"))
	tr.Set(formatFile, 0o100644, h)
	newRoot, _ := l.writeTree(tr)
	theirs, _ := l.CommitTree(newRoot, nil, sig, "future")
	var d *DamageError
	if _, err := l.Merge(ours, theirs, sig, "merge"); !errors.As(err, &d) || d.Path != formatFile ||
		!strings.Contains(err.Error(), "ledger 9") || !strings.Contains(err.Error(), "upgrade git-queen") {
		t.Fatalf("merge with a future format: %v", err)
	}
	if _, err := l.Inspect(ours, theirs); !errors.As(err, &d) || d.Path != formatFile {
		t.Fatalf("Inspect: %v", err)
	}
}

func TestUpdateRefIsACompareAndSwap(t *testing.T) {
	l, repo := open(t)
	c1, _ := l.Record(gitobject.ZeroID, Lines{records.MessagesFile: {msg("qm-1", sig.When, "a")}}, sig, "one")
	c2, _ := l.Record(c1, Lines{records.MessagesFile: {msg("qm-2", sig.When, "b")}}, sig, "two")
	var stale *refs.StaleError
	if err := l.Refs().Update(Ref, c1, c2); !errors.As(err, &stale) {
		t.Fatalf("update of a missing ref expecting %s: %v", c1, err)
	}
	if err := l.Refs().Update(Ref, gitobject.ZeroID, c1); err != nil {
		t.Fatal(err)
	}
	if err := l.Refs().Update(Ref, gitobject.ZeroID, c2); !errors.As(err, &stale) || stale.Got != c1 {
		t.Fatalf("create over an existing ref: %v", err)
	}
	// A packed ref is read, and a lock file git holds is waited for.
	testgit.Run(t, repo, "pack-refs", "--all")
	if _, err := os.Stat(filepath.Join(repo, ".git", Ref)); !os.IsNotExist(err) {
		t.Fatalf("pack-refs left the loose ref: %v", err)
	}
	if got, err := l.Refs().Read(Ref); err != nil || got != c1 {
		t.Fatalf("packed ref reads as %s (%v)", got, err)
	}
	if err := l.Refs().Update(Ref, c1, c2); err != nil {
		t.Fatal(err)
	}
	if got := testgit.Run(t, repo, "rev-parse", Ref); got != c2.String() {
		t.Fatalf("git sees %s, want %s", got, c2)
	}
	lock := filepath.Join(repo, ".git", Ref+".lock")
	os.WriteFile(lock, nil, 0o644)
	go func() { time.Sleep(100 * time.Millisecond); os.Remove(lock) }()
	if err := l.Refs().Update(Ref, c2, c1); err != nil {
		t.Fatalf("update after the lock went away: %v", err)
	}
}

// Many processes racing to move the ref from the same value: one wins.
func TestUpdateRefRace(t *testing.T) {
	l, repo := open(t)
	base, _ := l.Record(gitobject.ZeroID, Lines{records.MessagesFile: {msg("qm-0", sig.When, "a")}}, sig, "base")
	if err := l.Refs().Update(Ref, gitobject.ZeroID, base); err != nil {
		t.Fatal(err)
	}
	const n = 16
	var wg sync.WaitGroup
	wins := make([]bool, n)
	for i := range n {
		c, _ := l.Record(base, Lines{records.MessagesFile: {msg(fmt.Sprintf("qm-%d", i+1), sig.When, "x")}}, sig, "racer")
		wg.Go(func() {
			other, err := Open(filepath.Join(repo, ".git"))
			if err != nil {
				t.Error(err)
				return
			}
			defer other.Close()
			err = other.Refs().Update(Ref, base, c)
			var stale *refs.StaleError
			switch {
			case err == nil:
				wins[i] = true
			case !errors.As(err, &stale) && !strings.Contains(err.Error(), "cannot lock"):
				t.Error(err)
			}
		})
	}
	wg.Wait()
	won := 0
	for _, w := range wins {
		if w {
			won++
		}
	}
	if won != 1 {
		t.Fatalf("%d racers moved the ref, want exactly 1", won)
	}
	if out, err := exec.Command("git", "-C", repo, "fsck", "--no-dangling").CombinedOutput(); err != nil {
		t.Fatalf("fsck: %v\n%s", err, out)
	}
}

// A lock file left by a killed process does not block the ref for good.
func TestUpdateRefBreaksAStaleLock(t *testing.T) {
	l, repo := open(t)
	c1, _ := l.Record(gitobject.ZeroID, Lines{records.MessagesFile: {msg("qm-1", sig.When, "a")}}, sig, "one")
	lock := filepath.Join(repo, ".git", Ref+".lock")
	os.MkdirAll(filepath.Dir(lock), 0o755)
	os.WriteFile(lock, nil, 0o644)
	if err := l.Refs().Update(Ref, gitobject.ZeroID, c1); err != nil {
		t.Fatalf("a stale lock blocked the update: %v", err)
	}
	if _, err := os.Stat(lock); !os.IsNotExist(err) {
		t.Fatalf("the stale lock is still there: %v", err)
	}
}

// After git packs the ledger's objects (gc, or a fetch that kept its pack),
// the ledger reads them from the pack, and keeps writing beside them.
func TestLedgerReadsPackedObjects(t *testing.T) {
	l, repo := open(t)
	c1, _ := l.Record(gitobject.ZeroID, Lines{records.MessagesFile: {msg("qm-1", sig.When, "a")}}, sig, "one")
	if err := l.Refs().Update(Ref, gitobject.ZeroID, c1); err != nil {
		t.Fatal(err)
	}
	testgit.Run(t, repo, "gc", "-q", "--prune=now")
	if loose := testgit.Run(t, repo, "count-objects"); !strings.HasPrefix(loose, "0 objects") {
		t.Fatalf("gc left loose objects: %s", loose)
	}
	c2, err := l.Record(c1, Lines{records.MessagesFile: {msg("qm-2", sig.When, "b")}}, sig, "two")
	if err != nil {
		t.Fatalf("recording on a packed ledger: %v", err)
	}
	if got := lines(l, t, c2, records.MessagesFile); len(got) != 2 {
		t.Fatalf("lines after gc: %v", got)
	}
	testgit.Run(t, repo, "fsck", "--strict", c2.String())
}

func TestSHA256RepositoriesAreRefused(t *testing.T) {
	testgit.Isolate(t)
	dir := t.TempDir()
	testgit.Run(t, dir, "init", "-q", "--object-format=sha256")
	if _, err := Open(filepath.Join(dir, ".git")); !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "sha256") {
		t.Fatalf("Open on a SHA-256 repository: %v", err)
	}
}

// Diff is what one ledger commit holds that another does not.
type Diff struct {
	// Added are the lines of the newer commit the older lacks, by log, in
	// the order of the newer commit's chunks.
	Added Lines
	// Removed is true when the older commit holds lines the newer lacks:
	// the newer one is not a continuation of the older (a ledger reset or
	// replaced by hand), so what was derived from the older is suspect.
	Removed bool
}

// Changes compares two ledger commits: what to holds that from does not,
// every added line in memory (EachChange hands them over chunk by chunk).
// Only the tests read a whole difference at once.
func (l *Ledger) Changes(from, to gitobject.ID) (Diff, error) {
	d := Diff{Added: Lines{}}
	removed, err := l.EachChange(from, to, func(file string, lines [][]byte) error {
		d.Added[file] = append(d.Added[file], lines...)
		return nil
	})
	d.Removed = removed
	return d, err
}

// Merge writes a merge commit of ours and theirs whose tree is the union
// of theirs. ours comes first among the parents.
func (l *Ledger) Merge(ours, theirs gitobject.ID, sig Signature, msg string) (gitobject.ID, error) {
	ta, err := l.TreeOf(ours)
	if err != nil {
		return gitobject.ZeroID, err
	}
	tb, err := l.TreeOf(theirs)
	if err != nil {
		return gitobject.ZeroID, err
	}
	tree, err := l.MergeTrees(ta, tb)
	if err != nil {
		return gitobject.ZeroID, err
	}
	return l.CommitTree(tree, []gitobject.ID{ours, theirs}, sig, msg)
}
