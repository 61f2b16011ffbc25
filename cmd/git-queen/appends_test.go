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

	"github.com/git-queen/git-queen/internal/ids"
	"github.com/git-queen/git-queen/internal/jsonl"
	"github.com/git-queen/git-queen/internal/records"
	"github.com/git-queen/git-queen/internal/st"
)

// The end-to-end merge tests change the logs the way droids do. Every
// change goes through a droid value, so when the store commands land
// (`git queen msg send`, `git queen reserve`), sendMessage and reserve can
// run them instead (exec `git queen msg send --to ...` in d.dir) without
// touching the tests. Until then they append well-formed records with the
// jsonl engine, as those commands will.
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

func (d *droid) log(file string) *jsonl.Log {
	return &jsonl.Log{Path: filepath.Join(d.dir, ".beads", file), NoSync: true,
		Lock: &jsonl.Lock{Path: filepath.Join(d.dir, ".beads", ".test.lock")}}
}

func (d *droid) append(file string, recs ...any) {
	d.t.Helper()
	if err := d.log(file).Append(recs...); err != nil {
		d.t.Fatal(err)
	}
}

// sendMessage is `git queen msg send --to TO --subject SUBJECT`.
func (d *droid) sendMessage(to, subject string) string {
	now := d.tick()
	m := records.Message{ID: ids.NewMessage(), CreatedAt: now, UpdatedAt: &now, From: d.name, To: to,
		Subject: subject, Body: subject + " (body)", Importance: records.ImportanceNormal}
	d.append(records.MessagesFile, m)
	return m.ID
}

// readMessage is `git queen msg read ID`: a new version of the record.
func (d *droid) readMessage(id string) {
	d.t.Helper()
	state, err := d.log(records.MessagesFile).Load()
	if err != nil {
		d.t.Fatal(err)
	}
	r, ok := state.Get(id)
	if !ok {
		d.t.Fatalf("no message %s", id)
	}
	var m records.Message
	if err := json.Unmarshal(r.Raw, &m); err != nil {
		d.t.Fatal(err)
	}
	now := d.tick()
	m.Read, m.ReadAt, m.UpdatedAt = true, &now, &now
	d.append(records.MessagesFile, m)
}

// reserve is `git queen reserve PATTERN --exclusive`.
func (d *droid) reserve(pattern string) {
	now := d.tick()
	d.append(records.ReservationsFile, records.Reservation{ID: ids.NewReservation(), CreatedAt: now, UpdatedAt: &now,
		ExpiresAt: now.Add(2 * time.Hour), Pattern: pattern, Droid: d.name, Status: records.ReservationActive, Exclusive: true})
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
	for l := range jsonl.Lines(data) {
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
