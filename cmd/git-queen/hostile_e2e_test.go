package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/testgit"
)

// A hostile teammate has push access to the team's remote and uses it on
// the ledger: every probe below pushes something git-queen never writes.
// After each, the honest clones must still check, reserve, commit and
// sync, lose nothing, and their sync must name what it set aside.
//
// The probes run one after another on one team per transport (git daemon
// and git http-backend): each honest sync that follows a probe pushes the
// honest ledger back, so the next probe starts from a sound remote.

// hostileTeam is two honest clones (ann and bob, set up with git queen
// init) and mallory's plain clone of the same remote.
type hostileTeam struct {
	t             *testing.T
	ann, bob, mal string
	round         int
}

func newHostileTeam(t *testing.T, r testgit.Remote) *hostileTeam {
	seedRemote(t, r)
	h := &hostileTeam{t: t, ann: queenClone(t, r, "ann"), bob: queenClone(t, r, "bob"), mal: testgit.Clone(t, r)}
	mustQueen(t, h.ann, "ann", "reserve", "docs/**", "--reason", "the docs rewrite")
	mustQueen(t, h.ann, "ann", "msg", "send", "--new", "--to", "bob", "--subject", "before the probes")
	mustQueen(t, h.ann, "ann", "sync")
	mustQueen(t, h.bob, "bob", "sync")
	return h
}

// git runs git in mallory's clone with an optional temporary index and
// standard input, and returns its output.
func (h *hostileTeam) git(stdin []byte, index string, args ...string) string {
	h.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = h.mal
	if index != "" {
		cmd.Env = append(os.Environ(), "GIT_INDEX_FILE="+index)
	}
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		h.t.Fatalf("mallory: git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// honest is the remote's ledger as the honest clones left it.
func (h *hostileTeam) honest() string {
	h.git(nil, "", "fetch", "-q", "origin", "+refs/queen/ledger:refs/honest")
	return h.git(nil, "", "rev-parse", "refs/honest")
}

func (h *hostileTeam) object(kind string, content []byte) string {
	return h.git(content, "", "hash-object", "-t", kind, "-w", "--literally", "--stdin")
}

// tree is the honest ledger's tree with some entries changed:
// "MODE,ID,PATH" adds or replaces one, "-PATH" removes one (recursively).
func (h *hostileTeam) tree(edits ...string) string {
	index := filepath.Join(h.t.TempDir(), "index")
	h.git(nil, index, "read-tree", "refs/honest")
	for _, e := range edits {
		if p, ok := strings.CutPrefix(e, "-"); ok {
			h.git(nil, index, "rm", "-r", "-q", "--cached", "--", p)
			continue
		}
		h.git(nil, index, "update-index", "--add", "--cacheinfo", e)
	}
	return h.git(nil, index, "write-tree")
}

// rootWith is the honest ledger's root tree with the directory name
// pointing at tree (written raw: tree may be anything).
func (h *hostileTeam) rootWith(name, tree string) string {
	var entries []string
	for _, line := range strings.Split(h.git(nil, "", "ls-tree", "refs/honest"), "\n") {
		meta, entryName, _ := strings.Cut(line, "\t")
		f := strings.Fields(meta)
		if entryName == name || len(f) != 3 {
			continue
		}
		entries = append(entries, strings.TrimPrefix(f[0], "0")+" "+entryName+"\t"+f[2])
	}
	entries = append(entries, "40000 "+name+"\t"+tree)
	slices.SortFunc(entries, func(a, b string) int {
		key := func(e string) string {
			head, _, _ := strings.Cut(e, "\t")
			mode, n, _ := strings.Cut(head, " ")
			if mode == "40000" {
				n += "/"
			}
			return n
		}
		return strings.Compare(key(a), key(b))
	})
	var args []any
	for _, e := range entries {
		head, id, _ := strings.Cut(e, "\t")
		args = append(args, head, id)
	}
	return h.object("tree", rawEntries(args...))
}

// rawEntries is a tree object's content: "MODE NAME" then an id, in the
// order given.
func rawEntries(entries ...any) []byte {
	var b bytes.Buffer
	for i := 0; i < len(entries); i += 2 {
		raw, err := hex.DecodeString(entries[i+1].(string))
		if err != nil || len(raw) != 20 {
			panic(fmt.Sprintf("not an object id: %v", entries[i+1]))
		}
		b.WriteString(entries[i].(string) + "\x00")
		b.Write(raw)
	}
	return b.Bytes()
}

func (h *hostileTeam) commit(tree string, parents ...string) string {
	args := []string{"commit-tree", "-m", "hostile"}
	for _, p := range parents {
		args = append(args, "-p", p)
	}
	return h.git(nil, "", append(args, tree)...)
}

func (h *hostileTeam) push(object, ref string) {
	h.git(nil, "", "push", "-q", "-f", "origin", object+":"+ref)
}

// chunkPath is where a new chunk of a log goes in this month's directory.
func chunkPath(log string) string {
	return log + "/" + time.Now().UTC().Format("2006-01") + "/000/99.jsonl"
}

func reservationLine(id, droid, pattern string, at time.Time, ttl time.Duration) string {
	ts := at.UTC().Format(time.RFC3339Nano)
	return fmt.Sprintf(`{"id":%q,"created_at":%q,"updated_at":%q,"expires_at":%q,"pattern":%q,"droid":%q,"status":"active","exclusive":true}`,
		id, ts, ts, at.Add(ttl).UTC().Format(time.RFC3339Nano), pattern, droid)
}

func messageLine(id, from, to, subject string, at time.Time) string {
	ts := at.UTC().Format(time.RFC3339Nano)
	return fmt.Sprintf(`{"id":%q,"created_at":%q,"updated_at":%q,"from":%q,"to":%q,"subject":%q,"body":"","importance":"normal","read":false}`,
		id, ts, ts, from, to, subject)
}

// ulid is a fixed-shape id for hand-written records.
func ulid(prefix string, n int) string { return fmt.Sprintf("%s-01KB%022d", prefix, n) }

// honestStillWork runs what an honest clone does every day after a probe:
// bob fetches, checks (ann's reservation still holds, the rest is free),
// reserves, commits (the hook refuses ann's paths and passes the rest) and
// syncs; the sync names what it set aside (want, when not empty); ann
// syncs and sees bob's reservation; nothing of theirs is lost.
func (h *hostileTeam) honestStillWork(probe, want string) {
	t := h.t
	t.Helper()
	h.round++
	if out, err := gitProc(h.bob, "fetch", "-q"); err != nil {
		t.Fatalf("%s: bob's git fetch: %v\n%s", probe, err, out)
	}
	if r := gitQueen(t, h.bob, "bob", "check", "docs/x.md"); r.code != 5 || !strings.Contains(r.stdout+r.stderr, "ann") {
		t.Fatalf("%s: bob's check of ann's path: %s", probe, describeRun([]string{"check", "docs/x.md"}, r))
	}
	if r := gitQueen(t, h.bob, "bob", "check", "src/x.go"); r.code != 0 {
		t.Fatalf("%s: bob's check of a free path: %s", probe, describeRun([]string{"check", "src/x.go"}, r))
	}
	pattern := fmt.Sprintf("lib%d/**", h.round)
	reserve := gitQueen(t, h.bob, "bob", "reserve", pattern)
	if reserve.code != 0 {
		t.Fatalf("%s: bob's reserve: %s", probe, describeRun([]string{"reserve", pattern}, reserve))
	}
	testgit.Write(t, h.bob, fmt.Sprintf("src/%d.go", h.round), "package src\n")
	testgit.Run(t, h.bob, "add", "src")
	if out, err := gitProc(h.bob, "commit", "-q", "-m", probe); err != nil {
		t.Fatalf("%s: bob's commit of a free path was refused: %v\n%s", probe, err, out)
	}
	testgit.Write(t, h.bob, fmt.Sprintf("docs/%d.md", h.round), "x\n")
	testgit.Run(t, h.bob, "add", "docs")
	if out, err := gitProc(h.bob, "commit", "-q", "-m", probe); err == nil || !strings.Contains(out, "ann") {
		t.Fatalf("%s: bob's commit of ann's path: %v\n%s", probe, err, out)
	}
	testgit.Run(t, h.bob, "reset", "-q")
	r := gitQueen(t, h.bob, "bob", "sync")
	if r.code != 0 {
		t.Fatalf("%s: bob's sync: %s", probe, describeRun([]string{"sync"}, r))
	}
	// The reserve synced first (a grant is published before it is
	// reported): it or the sync names what was set aside.
	if said := reserve.stderr + r.stderr; want != "" && !strings.Contains(said, want) {
		t.Fatalf("%s: bob's reserve and sync do not name what they set aside (%q):\n%s", probe, want, said)
	}
	mustQueen(t, h.ann, "ann", "sync")
	found := false
	for _, row := range allReservations(t, h.ann, "ann") {
		found = found || row.Droid == "bob" && row.Pattern == pattern && row.Active
	}
	if !found {
		t.Fatalf("%s: ann does not see bob's reservation %s after both synced", probe, pattern)
	}
	msgs := inbox(t, h.bob, "bob")
	if len(msgs) == 0 || msgs[0].Subject != "before the probes" && msgs[len(msgs)-1].Subject != "before the probes" {
		t.Fatalf("%s: bob lost ann's message: %+v", probe, msgs)
	}
	if r := gitQueen(t, h.bob, "bob", "doctor"); r.code != 0 {
		t.Fatalf("%s: bob's doctor fails after the probe: %s", probe, describeRun([]string{"doctor"}, r))
	}
}

func TestHostilePushesNeverStopTheTeam(t *testing.T) {
	t.Parallel()
	for _, r := range []testgit.Remote{testgit.DaemonRemote(t), testgit.HTTPRemote(t)} {
		t.Run(r.Name, func(t *testing.T) {
			h := newHostileTeam(t, r)
			now := time.Now()
			ref := "refs/queen/ledger"

			h.honest()
			h.push(h.object("blob", []byte("hi\n")), ref)
			h.honestStillWork("a blob as the ledger", "a blob where a commit belongs")

			h.honest()
			h.push(h.object("tree", nil), ref)
			h.honestStillWork("a tree as the ledger", "a tree where a commit belongs")

			good := h.honest()
			h.push(h.commit(h.tree("160000,"+good+",assignments"), good), ref)
			h.honestStillWork("a gitlink in the ledger", "a submodule (gitlink)")

			good = h.honest()
			h.push(h.commit(h.tree("-reservations", "100644,"+h.object("blob", []byte("x\n"))+",reservations"), good), ref)
			h.honestStillWork("a file where the reservations directory is", `"reservations" has mode 100644`)

			good = h.honest()
			h.push(h.commit(h.tree("100644,"+h.object("blob", []byte("git-queen ledger 9\n"))+",FORMAT"), good), ref)
			h.honestStillWork("another FORMAT", "upgrade git-queen")

			// A chunk of 5 MB of well-formed reservations: refused from
			// its object header, unread.
			var big bytes.Buffer
			for i := 0; big.Len() < 5<<20; i++ {
				big.WriteString(reservationLine(ulid("qr", i), fmt.Sprintf("m%d", i), fmt.Sprintf("z%d/**", i), now, time.Hour) + "\n")
			}
			good = h.honest()
			h.push(h.commit(h.tree("100644,"+h.object("blob", big.Bytes())+","+chunkPath("reservations")), good), ref)
			h.honestStillWork("a chunk over the bound", "more than a ledger chunk may have")

			// A chunk with one good message, one line of 300 KB and two
			// lines that are not records: the message is applied, the rest
			// set aside and counted, and the sync counts one received.
			lines := messageLine(ulid("qm", 1), "mallory", "bob", "a good one", now) + "\n" +
				`{"id":"` + ulid("qm", 2) + `","subject":"` + strings.Repeat("x", 300<<10) + "\"}\n" +
				"not json\n[1,2,3]\n"
			good = h.honest()
			h.push(h.commit(h.tree("100644,"+h.object("blob", []byte(lines))+","+chunkPath("messages")), good), ref)
			h.honestStillWork("bad record lines", "record version(s)")
			found := false
			for _, m := range inbox(t, h.bob, "bob") {
				found = found || m.Subject == "a good one"
			}
			if !found {
				t.Fatal("the good line beside the bad ones was not applied")
			}

			// A reservation that claims 2099: it holds here for its own
			// time-to-live from its arrival, not until 2099.
			future := time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)
			good = h.honest()
			line := reservationLine(ulid("qr", 9), "mallory", "vendor/**", future, 2*time.Hour) + "\n"
			h.push(h.commit(h.tree("100644,"+h.object("blob", []byte(line))+",reservations/2099-01/000/00.jsonl"), good), ref)
			h.honestStillWork("a reservation dated 2099", "claim times up to")
			out := mustQueen(t, h.bob, "bob", "reservations", "--droid", "mallory", "--json")
			var got struct {
				Reservations []struct {
					ExpiresAt time.Time `json:"expires_at"`
				} `json:"reservations"`
			}
			if err := json.Unmarshal([]byte(out), &got); err != nil || len(got.Reservations) != 1 ||
				got.Reservations[0].ExpiresAt.After(time.Now().Add(3*time.Hour)) {
				t.Fatalf("mallory's reservation from 2099 as bob sees it: %s", out)
			}

			// A ledger pushed under another name: a plain fetch never reads
			// it as anyone's ledger, even packed.
			good = h.honest()
			ghost := reservationLine(ulid("qr", 10), "ghost", "**", now, time.Hour) + "\n"
			h.push(h.commit(h.tree("100644,"+h.object("blob", []byte(ghost))+","+chunkPath("reservations")), good), "refs/queen/remotes/x/ledger")
			testgit.Run(t, h.bob, "fetch", "-q")
			testgit.Run(t, h.bob, "pack-refs", "--all")
			h.honestStillWork("a ledger under another name", "")
			if refs := testgit.Run(t, h.bob, "for-each-ref", "--format=%(refname)", "refs/queen/"); strings.Contains(refs, "/x/") {
				if out := mustQueen(t, h.bob, "bob", "doctor"); !strings.Contains(out, "refs/queen/remotes/origin/remotes/x/ledger") {
					t.Fatalf("a fetch brought the ref pushed under another name, and doctor does not name it:\n%s", out)
				}
			}

			// Mallory releases ann's reservation and reserves ** in ann's
			// name, each version saying who wrote it and neither forced:
			// both are set aside on receipt, and ann's reservation holds.
			var annsRes struct {
				Reservations []struct {
					ID        string    `json:"id"`
					CreatedAt time.Time `json:"created_at"`
					ExpiresAt time.Time `json:"expires_at"`
				} `json:"reservations"`
			}
			if err := json.Unmarshal([]byte(mustQueen(t, h.bob, "bob", "reservations", "--droid", "ann", "--path", "docs/x.md", "--json")), &annsRes); err != nil || len(annsRes.Reservations) != 1 {
				t.Fatalf("ann's reservation as bob sees it: %v %+v", err, annsRes)
			}
			ar := annsRes.Reservations[0]
			ts := func(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
			forged := fmt.Sprintf(`{"id":%q,"created_at":%q,"updated_at":%q,"expires_at":%q,"released_at":%q,"pattern":"docs/**","droid":"ann","status":"released","exclusive":true,"updated_by":"mallory"}`,
				ar.ID, ts(ar.CreatedAt), ts(now.Add(time.Second)), ts(ar.ExpiresAt), ts(now.Add(time.Second))) + "\n" +
				strings.Replace(reservationLine(ulid("qr", 11), "ann", "**", now, time.Hour), `"exclusive":true`, `"exclusive":true,"updated_by":"mallory"`, 1) + "\n"
			good = h.honest()
			h.push(h.commit(h.tree("100644,"+h.object("blob", []byte(forged))+","+chunkPath("reservations")), good), ref)
			h.honestStillWork("versions of ann's reservations written by mallory", "authorship")

			// A subject with bidirectional controls from another clone is
			// shown escaped.
			good = h.honest()
			bidi := messageLine(ulid("qm", 4), "mallory", "bob", "invoice \u202egnp.exe", now) + "\n"
			h.push(h.commit(h.tree("100644,"+h.object("blob", []byte(bidi))+","+chunkPath("messages")), good), ref)
			h.honestStillWork("a subject with bidirectional controls", "")
			if out := mustQueen(t, h.bob, "bob", "msg", "inbox"); !strings.Contains(out, `\u202e`) || strings.ContainsRune(out, '\u202e') {
				t.Fatalf("the subject is not shown escaped:\n%s", out)
			}

			// A tree listing a name twice.
			good = h.honest()
			blob := h.object("blob", []byte(messageLine(ulid("qm", 3), "mallory", "bob", "twice", now)+"\n"))
			dup := h.object("tree", rawEntries("100644 00.jsonl", blob, "100644 00.jsonl", blob))
			month := h.object("tree", rawEntries("40000 000", dup))
			messages := h.object("tree", rawEntries("40000 "+time.Now().UTC().Format("2006-01"), month))
			h.push(h.commit(h.rootWith("messages", messages), good), ref)
			h.honestStillWork("a tree that lists a name twice", "out of order or twice")
		})
	}
}

// The commit and push hooks judge reservations at the real time whatever
// QUEEN_NOW says, when it says later: set to 2099 it let every reserved
// path through, unnoticed.
func TestHooksIgnoreAClockFromTheFuture(t *testing.T) {
	t.Parallel()
	r := testgit.FileRemote(t)
	seedRemote(t, r)
	ann, bob := queenClone(t, r, "ann"), queenClone(t, r, "bob")
	mustQueen(t, ann, "ann", "reserve", "docs/**")
	mustQueen(t, bob, "bob", "sync")
	testgit.Write(t, bob, "docs/a.md", "x\n")
	testgit.Run(t, bob, "add", "docs")
	cmd := exec.Command("git", "commit", "-q", "-m", "docs")
	cmd.Dir = bob
	cmd.Env = append(os.Environ(), "QUEEN_NOW=2099-01-01T00:00:00Z", "QUEEN_DROID=bob")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "ignoring QUEEN_NOW") || !strings.Contains(string(out), "ann") {
		t.Fatalf("a commit of ann's path with QUEEN_NOW in 2099: %v\n%s", err, out)
	}
}

// A local ledger ref that names a missing object (what git gc --prune=now
// leaves when it runs during a sync) or holds no id at all: check and
// commit go on, doctor names the damage and the fix, and the next sync
// rebuilds the ledger from the live store without blaming the remote,
// losing nothing.
func TestADamagedLocalLedgerIsRebuilt(t *testing.T) {
	t.Parallel()
	r := testgit.DaemonRemote(t)
	h := newHostileTeam(t, r)
	mustQueen(t, h.bob, "bob", "msg", "send", "--new", "--to", "ann", "--subject", "kept")
	ref := filepath.Join(h.bob, ".git", "refs", "queen", "ledger")
	for i, content := range []string{strings.Repeat("12", 20) + "\n", "not a commit id\n"} {
		if err := os.WriteFile(ref, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if r := gitQueen(t, h.bob, "bob", "check", "docs/x.md"); r.code != 5 {
			t.Fatalf("check with a damaged ledger: %s", describeRun([]string{"check"}, r))
		}
		if r := gitQueen(t, h.bob, "bob", "doctor"); r.code != 1 || !strings.Contains(r.stdout, "damaged") || !strings.Contains(r.stdout, "rebuilds it") {
			t.Fatalf("doctor with a damaged ledger: %s", describeRun([]string{"doctor"}, r))
		}
		// git's own fetch stops at a ref naming a missing object ("bad
		// object refs/queen/ledger"); sync readies the refs before it
		// fetches, so it neither fails nor blames the remote.
		if i == 0 {
			if r := gitQueen(t, h.bob, "bob", "sync"); r.code != 0 || !strings.Contains(r.stderr, "rebuilt from the live store") {
				t.Fatalf("sync with a damaged ledger: %s", describeRun([]string{"sync"}, r))
			}
			h.honestStillWork("a local ledger that named a missing commit", "")
		} else {
			mustQueen(t, h.bob, "bob", "doctor", "--fix")
			h.honestStillWork("a local ledger ref of garbage, fixed by doctor", "")
		}
		if r := gitQueen(t, h.bob, "bob", "doctor"); r.code != 0 {
			t.Fatalf("doctor after the repair: %s", describeRun([]string{"doctor"}, r))
		}
	}
	found := false
	for _, m := range inbox(t, h.ann, "ann") {
		found = found || m.Subject == "kept"
	}
	if !found {
		t.Fatal("bob's message written before the damage did not reach ann")
	}
	// The fetched copy of the remote's ledger naming a missing commit is
	// dropped and fetched again.
	tracking := filepath.Join(h.bob, ".git", "refs", "queen", "remotes", "origin", "ledger")
	if err := os.WriteFile(tracking, []byte(strings.Repeat("34", 20)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := gitQueen(t, h.bob, "bob", "check", "docs/x.md"); r.code != 5 {
		t.Fatalf("check with a damaged fetched ledger: %s", describeRun([]string{"check"}, r))
	}
	if r := gitQueen(t, h.bob, "bob", "sync"); r.code != 0 {
		t.Fatalf("sync with a damaged fetched ledger: %s", describeRun([]string{"sync"}, r))
	}
	h.honestStillWork("a fetched ledger that named a missing commit", "")
}

// A ledger whose older commits, not yet on the remote, lack their trees
// (a git gc --prune=now that ran during a sync pruned the trees of a
// commit the sync then merged, after its walk of the refs): the tip and
// everything under it read, so nothing looks wrong until git cannot pack
// the push. The sync rebuilds the ledger from the live store and pushes
// that, losing nothing, instead of failing every sync after it.
func TestALedgerMissingTreesBelowItsTipIsRebuilt(t *testing.T) {
	t.Parallel()
	r := testgit.DaemonRemote(t)
	h := newHostileTeam(t, r)
	// The remote refuses for a while, so that bob's ledger holds two
	// commits the remote lacks.
	hook := filepath.Join(r.Dir, "hooks", "pre-receive")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\necho closed for the test >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, subject := range []string{"first while refused", "second while refused"} {
		mustQueen(t, h.bob, "bob", "msg", "send", "--new", "--to", "ann", "--subject", subject)
		if r := gitQueen(t, h.bob, "bob", "sync"); r.code == 0 {
			t.Fatalf("sync past a refusing remote: %s", describeRun([]string{"sync"}, r))
		}
	}
	if err := os.Remove(hook); err != nil {
		t.Fatal(err)
	}
	// Remove the loose trees of the older commit that the tip's tree does
	// not share, as a prune would.
	tip := strings.TrimSpace(testgit.Run(t, h.bob, "rev-parse", "refs/queen/ledger"))
	kept := map[string]bool{}
	for _, line := range strings.Split(testgit.Run(t, h.bob, "rev-list", "--objects", "--no-walk", tip), "\n") {
		id, _, _ := strings.Cut(line, " ")
		kept[id] = true
	}
	removed := 0
	for _, line := range strings.Split(testgit.Run(t, h.bob, "rev-list", "--objects", tip+"^", "--not", "refs/queen/remotes/origin/ledger"), "\n") {
		id, _, _ := strings.Cut(line, " ")
		if id == "" || kept[id] || strings.TrimSpace(testgit.Run(t, h.bob, "cat-file", "-t", id)) != "tree" {
			continue
		}
		if os.Remove(filepath.Join(h.bob, ".git", "objects", id[:2], id[2:])) == nil {
			removed++
		}
	}
	if removed == 0 {
		t.Fatal("found no loose tree of the older commit to remove")
	}
	if r := gitQueen(t, h.bob, "bob", "sync"); r.code != 0 {
		t.Fatalf("sync with trees of its unpushed ledger missing: %s", describeRun([]string{"sync"}, r))
	}
	if r := gitQueen(t, h.bob, "bob", "doctor"); r.code != 0 {
		t.Fatalf("doctor after the repair: %s", describeRun([]string{"doctor"}, r))
	}
	h.honestStillWork("trees of an older unpushed ledger commit pruned", "")
	mustQueen(t, h.ann, "ann", "sync")
	got := map[string]bool{}
	for _, m := range inbox(t, h.ann, "ann") {
		got[m.Subject] = true
	}
	if !got["first while refused"] || !got["second while refused"] {
		t.Fatalf("bob's messages written before the damage did not reach ann: %v", got)
	}
}
