package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/format/st"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// The steps of a random history and the checks after them.

// git runs git in dir and fails the history on an error.
func (h *randomHistory) git(dir string, args ...string) string {
	h.t.Helper()
	out, err := h.tryGit(dir, args...)
	if err != nil {
		h.t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), filepath.Base(dir), err, out)
	}
	return out
}

func (h *randomHistory) tryGit(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// queen runs `git queen --beads-dir .beads --droid DROID ARGS` in dir.
func (h *randomHistory) queen(dir, droid string, args ...string) string {
	h.t.Helper()
	return h.git(dir, append([]string{"queen", "--beads-dir", ".beads", "--droid", droid}, args...)...)
}

func (h *randomHistory) read(dir, file string) []byte {
	data, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil && !os.IsNotExist(err) {
		h.t.Fatal(err)
	}
	return data
}

func (h *randomHistory) write(dir, file string, data []byte) {
	if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, file)), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, file), data, 0o644); err != nil {
		h.t.Fatal(err)
	}
}

// commit commits everything in dir, if anything changed.
func (h *randomHistory) commit(dir, msg string) {
	h.git(dir, "add", "-A")
	if _, err := h.tryGit(dir, "diff", "--cached", "--quiet"); err == nil {
		return
	}
	h.git(dir, "commit", "-q", "-m", msg)
}

// cli runs a store command as droid on branch b, remembers the lines it
// appended to file, and commits.
func (h *randomHistory) cli(b, file, droid string, args ...string) {
	dir := h.dirs[b]
	before := lineSet(h.read(dir, file))
	h.queen(dir, droid, args...)
	for l := range jsonline.Lines(h.read(dir, file)) {
		if !l.Blank() && !before[string(l.Raw)] {
			id, _ := recordID(l.Raw)
			h.written[id] = append(h.written[id], string(l.Raw))
		}
	}
	h.commit(dir, strings.Join(args, " "))
	h.logf("%s: %s as %s", b, strings.Join(args, " "), droid)
	h.checkBranch(b, nil)
}

func (h *randomHistory) send(b string) {
	to := droidOf(h.pick())
	h.fact++
	h.cli(b, messagesFile, droidOf(b), "msg", "send", "--new", "--to", to, "--subject", fmt.Sprintf("s%d", h.fact), "--body", "b")
}

// readOrDelete has a message's recipient read it, or one of its two
// droids delete it, on branch b.
func (h *randomHistory) readOrDelete(b string, read bool) {
	msgs := current(h.read(h.dirs[b], messagesFile))
	if len(msgs) == 0 {
		return
	}
	var m struct {
		ID, From, To  string
		Read, Deleted bool
	}
	if json.Unmarshal(msgs[h.rng.IntN(len(msgs))], &m) != nil || m.Deleted {
		return
	}
	switch {
	case read && !m.Read:
		h.cli(b, messagesFile, m.To, "msg", "read", m.ID)
	case !read:
		who := m.To
		if h.rng.IntN(2) == 0 {
			who = m.From
		}
		h.cli(b, messagesFile, who, "msg", "delete", m.ID)
	}
}

func (h *randomHistory) reserveOrRelease(b string) {
	droid := droidOf(b)
	if h.rng.IntN(2) == 0 {
		h.fact++
		h.cli(b, reservationsFile, droid, "reserve", fmt.Sprintf("docs/%s/f%d/**", b, h.fact), "--exclusive")
		return
	}
	for _, raw := range current(h.read(h.dirs[b], reservationsFile)) {
		var r records.Reservation
		if json.Unmarshal(raw, &r) == nil && r.Droid == droid && r.Status == records.ReservationActive {
			h.cli(b, reservationsFile, droid, "release", r.Pattern)
			return
		}
	}
}

// stAppend appends an st event numbered after the watermark, as st does.
func (h *randomHistory) stAppend(dir, body string) {
	data := h.read(dir, planFile)
	recs, _ := st.Parse(data)
	line := fmt.Sprintf(`{"v":3,"ts":%q,"seq":%d,"lane":"event",%s}`, h.clock.Format("2006-01-02T15:04:05Z"), st.Watermark(recs)+1, body)
	h.write(dir, planFile, append(data, line+"\n"...))
}

// editWorkOrder changes one field of a work order in the projection, as
// VerMAS does: the record's line replaced, updated_at bumped.
func (h *randomHistory) editWorkOrder(dir, id string) {
	var lines [][]byte
	rec := map[string]any{"id": id, "title": "work " + id, "status": "open", "priority": 2, "issue_type": "task",
		"created_at": "2026-01-06T10:00:00.000Z", "created_by": "ceo"}
	for l := range jsonline.Lines(h.read(dir, workOrdersFile)) {
		var m map[string]any
		if json.Unmarshal(l.Raw, &m) == nil && m["id"] == id {
			rec = m
			continue
		}
		lines = append(lines, slices.Clone(l.Raw))
	}
	h.fact++
	switch h.rng.IntN(4) {
	case 0:
		rec["title"] = fmt.Sprintf("title f%d", h.fact)
	case 1:
		rec["priority"] = h.rng.IntN(5)
	case 2:
		rec["status"] = []string{"open", "in_progress", "assigned", "closed"}[h.rng.IntN(4)]
	default:
		rec["assignee"] = fmt.Sprintf("d%d", h.rng.IntN(5))
	}
	updated := h.clock.Format("2006-01-02T15:04:05.000Z")
	rec["updated_at"] = updated
	if updated > h.woNewest[id] {
		h.woNewest[id] = updated
	}
	b, err := json.Marshal(rec)
	if err != nil {
		h.t.Fatal(err)
	}
	lines = append(lines, b)
	slices.SortFunc(lines, bytes.Compare)
	h.write(dir, workOrdersFile, append(bytes.Join(lines, []byte("\n")), '\n'))
}

// merge merges from into into, in into's worktree; the other direction,
// in the scratch worktree, must give the same tree.
func (h *randomHistory) merge(from, into string) {
	old := h.tip(into)
	h.logf("%s: git merge %s", into, from)
	h.gitMerge(h.dirs[into], from)
	h.git(h.scratch, "checkout", "-q", "--detach", h.tip(from))
	h.gitMerge(h.scratch, old)
	if a, b := h.tree(h.dirs[into]), h.tree(h.scratch); a != b {
		h.t.Errorf("merging %s into %s and the other way round give different trees:\n%s", from, into, h.treeDiff(into))
	}
	h.checkBranch(into, []string{old, h.tip(from)})
}

// crissCross merges a's tip into b and b's tip into a at once.
func (h *randomHistory) crissCross(a, b string) {
	ta, tb := h.tip(a), h.tip(b)
	h.logf("criss-cross: %s merges %s and %s merges %s", b, a, a, b)
	h.gitMerge(h.dirs[b], ta)
	h.gitMerge(h.dirs[a], tb)
	if h.tree(h.dirs[a]) != h.tree(h.dirs[b]) {
		h.t.Errorf("the criss-cross merges of %s and %s give different trees:\n%s", a, b, h.treeDiff(a))
	}
	h.checkBranch(a, []string{ta, tb})
	h.checkBranch(b, []string{ta, tb})
}

func (h *randomHistory) rebase(b, onto string) {
	old, base := h.tip(b), h.tip(onto)
	h.logf("%s: git rebase %s", b, onto)
	if out, err := h.tryGit(h.dirs[b], "rebase", "-q", base); err != nil {
		status, _ := h.tryGit(h.dirs[b], "status", "--short")
		h.t.Fatalf("git rebase %s in %s: %v\n%s\n%s", onto, b, err, out, status)
	}
	h.checkBranch(b, []string{old, base})
}

// cherryPick picks a random commit of from that into lacks.
func (h *randomHistory) cherryPick(from, into string) {
	list := strings.Fields(h.git(h.repo, "rev-list", "--no-merges", h.tip(into)+".."+h.tip(from)))
	if len(list) == 0 {
		return
	}
	c := list[h.rng.IntN(len(list))]
	old := h.tip(into)
	h.logf("%s: git cherry-pick %s (from %s)", into, c[:8], from)
	if out, err := h.tryGit(h.dirs[into], "cherry-pick", "--keep-redundant-commits", c); err != nil {
		status, _ := h.tryGit(h.dirs[into], "status", "--short")
		h.t.Fatalf("git cherry-pick %s in %s: %v\n%s\n%s", c, into, err, out, status)
	}
	// What the commit added must be there, on top of what into had, and
	// the work orders it changed at least as new as it left them.
	picked, parent := h.show(c), h.show(c+"^")
	added := minus(h.factsOf(picked), h.factsOf(parent))
	newest := workOrderTimes(h.show(old)[workOrdersFile])
	before := workOrderTimes(parent[workOrdersFile])
	for id, t := range workOrderTimes(picked[workOrdersFile]) {
		if before[id] != t {
			newest[id] = max(newest[id], t)
		}
	}
	h.checkBranchWith(into, []string{old}, added, newest)
}

func (h *randomHistory) gitMerge(dir, rev string) {
	h.t.Helper()
	if out, err := h.tryGit(dir, "merge", "-q", "--no-edit", rev); err != nil {
		status, _ := h.tryGit(dir, "status", "--short")
		h.t.Fatalf("git merge %s in %s: %v\n%s\n%s", rev, filepath.Base(dir), err, out, status)
	}
}

func (h *randomHistory) tip(b string) string { return h.git(h.repo, "rev-parse", b) }

func (h *randomHistory) tree(dir string) string { return h.git(dir, "rev-parse", "HEAD^{tree}") }

func (h *randomHistory) treeDiff(b string) string {
	out, _ := h.tryGit(h.dirs[b], "diff", "HEAD", "--no-ext-diff", h.git(h.scratch, "rev-parse", "HEAD"))
	return out
}

// show reads every history file at rev.
func (h *randomHistory) show(rev string) map[string][]byte {
	cmd := exec.Command("git", "cat-file", "--batch")
	cmd.Dir = h.repo
	var in bytes.Buffer
	for _, f := range historyFiles {
		fmt.Fprintf(&in, "%s:%s\n", rev, f)
	}
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		h.t.Fatalf("git cat-file --batch: %v", err)
	}
	files := map[string][]byte{}
	r := bufio.NewReader(bytes.NewReader(out))
	for _, f := range historyFiles {
		header, err := r.ReadString('\n')
		if err != nil {
			h.t.Fatalf("git cat-file --batch: %v", err)
		}
		fields := strings.Fields(header)
		if len(fields) != 3 {
			continue // missing
		}
		n, _ := strconv.Atoi(fields[2])
		data := make([]byte, n+1)
		if _, err := io.ReadFull(r, data); err != nil {
			h.t.Fatal(err)
		}
		files[f] = data[:n]
	}
	return files
}

// facts are what must never be lost: every line of the QueenBee stores,
// every st fact token, every work order.
func (h *randomHistory) factsOf(files map[string][]byte) map[string]bool {
	facts := map[string]bool{}
	for _, f := range []string{messagesFile, reservationsFile} {
		for l := range jsonline.Lines(files[f]) {
			if !l.Blank() {
				facts[f+" "+string(l.Raw)] = true
			}
		}
	}
	recs, _ := st.Parse(files[planFile])
	for _, r := range recs {
		if r.Lane == st.LaneEvent {
			for _, m := range tokenPattern.FindAllSubmatch(r.Raw, -1) {
				facts["st "+string(m[1])] = true
			}
		}
	}
	for _, raw := range current(files[workOrdersFile]) {
		id, _ := recordID(raw)
		facts["wo "+id] = true
	}
	return facts
}

var tokenPattern = regexp.MustCompile(`"(f\d+)"`)

func minus(a, b map[string]bool) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		if !b[k] {
			out[k] = true
		}
	}
	return out
}

// checkBranch checks branch b's tip after a step whose inputs were the
// commits in inputs: everything they held is still there.
func (h *randomHistory) checkBranch(b string, inputs []string) {
	newest := map[string]string{}
	for _, in := range inputs {
		for id, t := range workOrderTimes(h.show(in)[workOrdersFile]) {
			newest[id] = max(newest[id], t)
		}
	}
	h.checkBranchWith(b, inputs, nil, newest)
}

// checkBranchWith checks b's tip: what the inputs held and extra are
// there, and each work order's updated_at is the one newest gives.
func (h *randomHistory) checkBranchWith(b string, inputs []string, extra map[string]bool, newest map[string]string) {
	h.t.Helper()
	files := h.show(h.tip(b))
	h.checkFiles(b, files)
	have := h.factsOf(files)
	want := map[string]bool{}
	for k := range extra {
		want[k] = true
	}
	for _, in := range inputs {
		for k := range h.factsOf(h.show(in)) {
			want[k] = true
		}
	}
	for k := range want {
		if !have[k] {
			h.t.Errorf("%s lost %s", b, k)
		}
	}
	got := workOrderTimes(files[workOrdersFile])
	for id, t := range newest {
		if got[id] != t {
			h.t.Errorf("%s: work order %s has updated_at %s, want the newest of its inputs, %s", b, id, got[id], t)
		}
	}
}

// checkFiles checks one state of the files: no line twice, each st fact in
// one event, and git queen validate passes (one line per id in the
// projection, each store id's last line its newest version, st seqs
// without gaps and the replay contract).
func (h *randomHistory) checkFiles(where string, files map[string][]byte) {
	h.t.Helper()
	for _, f := range historyFiles {
		seen := map[string]bool{}
		for l := range jsonline.Lines(files[f]) {
			if !l.Blank() && seen[string(l.Raw)] {
				h.t.Errorf("%s: %s repeats line %d: %s", where, f, l.No, l.Raw)
			}
			seen[string(l.Raw)] = true
		}
	}
	for _, f := range []string{messagesFile, reservationsFile} {
		last := map[string][]byte{}
		for l := range jsonline.Lines(files[f]) {
			if id, ok := recordID(l.Raw); ok {
				last[id] = l.Raw
			}
		}
		for _, newest := range current(files[f]) {
			id, _ := recordID(newest)
			if !bytes.Equal(last[id], newest) {
				h.t.Errorf("%s: %s: the last line of %s is\n%s\nnot its newest version\n%s", where, f, id, last[id], newest)
			}
		}
	}
	recs, errs := st.Parse(files[planFile])
	if len(errs) > 0 {
		h.t.Errorf("%s: %s: %v", where, planFile, errs)
	}
	events := map[string]int{}
	for _, r := range recs {
		if r.Lane == st.LaneEvent {
			for _, m := range tokenPattern.FindAllSubmatch(r.Raw, -1) {
				events[string(m[1])]++
			}
		}
	}
	for token, n := range events {
		if n > 1 {
			h.t.Errorf("%s: the st event %s is in the stream %d times:\n%s", where, token, n, files[planFile])
		}
	}
	dir := h.t.TempDir()
	var paths []string
	for _, f := range historyFiles {
		h.write(dir, f, files[f])
		paths = append(paths, f)
	}
	cmd := exec.Command("git", append([]string{"queen", "validate", "--limit", "5"}, paths...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		h.t.Errorf("%s: git queen validate: %v\n%s", where, err, out)
	}
}

// mergeAll merges every branch into one, in the scratch worktree, and
// checks that every fact ever written is there, and every record at its
// newest version, for git-queen's readers too.
func (h *randomHistory) mergeAll() {
	h.git(h.scratch, "checkout", "-q", "--detach", h.tip(h.names[0]))
	for _, b := range h.names[1:] {
		h.gitMerge(h.scratch, h.tip(b))
	}
	rev := h.git(h.scratch, "rev-parse", "HEAD")
	files := h.show(rev)
	h.checkFiles("all merged", files)
	have := h.factsOf(files)
	for _, f := range h.facts {
		if !have["st "+f] {
			h.t.Errorf("all merged: the st event %s is lost", f)
		}
	}
	for _, f := range []string{messagesFile, reservationsFile} {
		last := map[string]string{}
		for l := range jsonline.Lines(files[f]) {
			if id, ok := recordID(l.Raw); ok {
				last[id] = string(l.Raw)
			}
		}
		for id, versions := range h.written {
			if !strings.HasPrefix(id, map[string]string{messagesFile: "qm-", reservationsFile: "qr-"}[f]) {
				continue
			}
			for _, v := range versions {
				if !have[f+" "+v] {
					h.t.Errorf("all merged: %s lost %s", f, v)
				}
			}
			if newest := newestVersion(versions); last[id] != newest {
				h.t.Errorf("all merged: the last line of %s is\n%s\nnot its newest version\n%s", id, last[id], newest)
			}
		}
	}
	got := workOrderTimes(files[workOrdersFile])
	for id, t := range h.woNewest {
		if got[id] != t {
			h.t.Errorf("all merged: work order %s has updated_at %s, want its newest, %s", id, got[id], t)
		}
	}
	// git-queen's readers see the newest versions: each droid's inbox is
	// the messages to it whose newest version is not deleted.
	for _, b := range h.names {
		droid := droidOf(b)
		want := []string{}
		for id, versions := range h.written {
			var m records.Message
			if strings.HasPrefix(id, "qm-") && json.Unmarshal([]byte(newestVersion(versions)), &m) == nil && m.To == droid && !m.Deleted {
				want = append(want, id)
			}
		}
		var inbox struct{ Messages []struct{ ID string } }
		if err := json.Unmarshal([]byte(h.queen(h.scratch, droid, "msg", "inbox", "--json")), &inbox); err != nil {
			h.t.Fatal(err)
		}
		var got []string
		for _, m := range inbox.Messages {
			got = append(got, m.ID)
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			h.t.Errorf("all merged: %s's inbox lists %v, want %v", droid, got, want)
		}
	}
}

// newestVersion is the version records.Newer puts above the others.
func newestVersion(versions []string) string {
	newest := versions[0]
	for _, v := range versions[1:] {
		if records.Newer([]byte(v), []byte(newest)) {
			newest = v
		}
	}
	return newest
}

// current is each record's newest version in a store or projection.
func current(data []byte) [][]byte {
	var out [][]byte
	for _, r := range jsonl.Materialize(data, "", "", records.Versions).Records {
		out = append(out, r.Raw)
	}
	return out
}

func workOrderTimes(data []byte) map[string]string {
	out := map[string]string{}
	for l := range jsonline.Lines(data) {
		var w struct{ ID, UpdatedAt string }
		if json.Unmarshal(l.Raw, &struct {
			ID        *string `json:"id"`
			UpdatedAt *string `json:"updated_at"`
		}{&w.ID, &w.UpdatedAt}) == nil {
			out[w.ID] = max(out[w.ID], w.UpdatedAt)
		}
	}
	return out
}

func lineSet(data []byte) map[string]bool {
	out := map[string]bool{}
	for l := range jsonline.Lines(data) {
		out[string(l.Raw)] = true
	}
	return out
}

func recordID(line []byte) (string, bool) {
	var r struct{ ID string }
	if json.Unmarshal(line, &r) != nil || r.ID == "" {
		return "", false
	}
	return r.ID, true
}
