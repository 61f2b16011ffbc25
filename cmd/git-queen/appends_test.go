package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/base/ids"
	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/format/st"
)

// The end-to-end merge tests change tracked logs the way droids do:
// messages and reservations through the real commands (`git queen msg send`,
// `msg read`, `reserve`, run as processes in the droid's worktree) on a plain
// directory store committed in .beads/ (--beads-dir: the seed's layout, which
// a team may still commit, and older setups did), and the files of the
// other systems (st, VerMAS, beads) the way those tools write them.
type droid struct {
	t    *testing.T
	name string
	dir  string // the worktree
	now  time.Time
}

func (d *droid) tick() time.Time {
	d.now = d.now.Add(time.Second)
	return d.now
}

// queen runs `git queen --beads-dir .beads ARGS` as the droid (or as
// another, with --droid in args) in its worktree and returns the standard
// output.
func (d *droid) queen(args ...string) string {
	d.t.Helper()
	return mustQueen(d.t, d.dir, d.name, append([]string{"--beads-dir", ".beads"}, args...)...)
}

// sendMessage is `git queen msg send --to TO --subject SUBJECT`.
func (d *droid) sendMessage(to, subject string) string {
	d.t.Helper()
	out := d.queen("msg", "send", "--new", "--to", to, "--subject", subject, "--body", subject+" (body)", "--json")
	var sent struct {
		Sent []records.Message `json:"sent"`
	}
	if err := json.Unmarshal([]byte(out), &sent); err != nil || len(sent.Sent) != 1 {
		d.t.Fatalf("msg send --json: %v\n%s", err, out)
	}
	return sent.Sent[0].ID
}

// readMessage has the message's recipient read it in this worktree (`git
// queen msg read ID`), which appends the read version of the record.
func (d *droid) readMessage(id string) {
	d.t.Helper()
	var m records.Message
	if err := json.Unmarshal([]byte(d.queen("msg", "read", id, "--json")), &m); err != nil {
		d.t.Fatal(err)
	}
	var read records.Message
	if err := json.Unmarshal([]byte(d.queen("--droid", m.To, "msg", "read", id, "--json")), &read); err != nil || !read.Read {
		d.t.Fatalf("%s reading %s did not mark it read: %v", m.To, id, err)
	}
}

// reserve is `git queen reserve PATTERN --exclusive`.
func (d *droid) reserve(pattern string) {
	d.t.Helper()
	d.queen("reserve", pattern, "--exclusive")
}

// stEvent appends an st v3 event numbered after the stream's watermark, as
// st itself does.
func (d *droid) stEvent(body string) {
	d.t.Helper()
	path := filepath.Join(d.dir, "plan.jsonl")
	data, _ := os.ReadFile(path)
	recs, _ := st.Parse(data)
	line := fmt.Sprintf(`{"v":3,"ts":%q,"seq":%d,"lane":"event",%s}`, d.tick().Format(time.RFC3339), st.Watermark(recs)+1, body)
	d.appendLine(path, line)
}

// vermasEvent appends a VerMAS event to .work/events.jsonl.
func (d *droid) vermasEvent(kind string) {
	now := d.tick()
	line := fmt.Sprintf(`{"event_id":"evt-%s","event_type":%q,"timestamp":%q,"actor":%q,"data":{}}`,
		ids.New("")[14:], kind, now.Format("2006-01-02T15:04:05.000Z"), d.name)
	d.appendLine(filepath.Join(d.dir, ".work", "events.jsonl"), line)
}

func (d *droid) appendLine(path, line string) {
	d.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		d.t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		d.t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(line + "\n"); err != nil {
		d.t.Fatal(err)
	}
}

// setIssue is what `bd update` does to .beads/issues.jsonl: the record's
// line replaced (or added), fields set, updated_at bumped, sorted by id.
func (d *droid) setIssue(id string, fields map[string]any) {
	d.t.Helper()
	path := filepath.Join(d.dir, ".beads", "issues.jsonl")
	data, _ := os.ReadFile(path)
	var lines [][]byte
	rec := map[string]any{"id": id, "created_at": "2026-01-01T00:00:00Z"}
	for l := range jsonline.Lines(data) {
		var m map[string]any
		if json.Unmarshal(l.Raw, &m) == nil && m["id"] == id {
			rec = m
			continue
		}
		lines = append(lines, slices.Clone(l.Raw))
	}
	for k, v := range fields {
		rec[k] = v
	}
	rec["updated_at"] = d.tick().Format(time.RFC3339)
	b, err := json.Marshal(rec)
	if err != nil {
		d.t.Fatal(err)
	}
	lines = append(lines, b)
	slices.SortFunc(lines, func(a, b []byte) int { return bytes.Compare(a, b) })
	if err := os.WriteFile(path, append(bytes.Join(lines, []byte("\n")), '\n'), 0o644); err != nil {
		d.t.Fatal(err)
	}
}
