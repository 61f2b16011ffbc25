// Command seedpeer is the peer the store benchmarks measure git-queen
// against: seed 002's plan for QueenBee (ReadAll with bufio.Scanner and
// encoding/json into a struct per line, a latest-state map, the naive
// PatternsOverlap, one append), written out as it stands in the seed so both
// run on the same store in the same benchmark.
//
//	seedpeer -dir .beads reserve PATTERN DROID
//	seedpeer -dir .beads inbox DROID
//	seedpeer -dir .beads send FROM TO SUBJECT BODY
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
)

type reservation struct {
	ID         string     `json:"id"`
	CreatedAt  time.Time  `json:"created_at"`
	ExpiresAt  time.Time  `json:"expires_at"`
	ReleasedAt *time.Time `json:"released_at,omitempty"`
	Pattern    string     `json:"pattern"`
	Droid      string     `json:"droid"`
	IssueID    string     `json:"issue_id,omitempty"`
	Status     string     `json:"status"`
	Exclusive  bool       `json:"exclusive"`
	Reason     string     `json:"reason,omitempty"`
}

type message struct {
	ID         string     `json:"id"`
	CreatedAt  time.Time  `json:"created_at"`
	From       string     `json:"from"`
	To         string     `json:"to"`
	Subject    string     `json:"subject"`
	Body       string     `json:"body"`
	IssueID    string     `json:"issue_id,omitempty"`
	ThreadID   string     `json:"thread_id,omitempty"`
	Importance string     `json:"importance"`
	Read       bool       `json:"read"`
	ReadAt     *time.Time `json:"read_at,omitempty"`
	Deleted    bool       `json:"deleted,omitempty"`
}

func readAll[T any](path string) []T {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r T
		if json.Unmarshal(sc.Bytes(), &r) == nil {
			out = append(out, r)
		}
	}
	return out
}

// appendLine is the seed's JSONLStore.Append: v as one line at the end of
// the log at path.
func appendLine(path string, v any) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		log.Fatal(err)
	}
	b, _ := json.Marshal(v)
	if _, err := f.Write(append(b, '\n')); err != nil {
		log.Fatal(err)
	}
	f.Close()
}

func patternsOverlap(a, b string) bool {
	if a == b {
		return true
	}
	if m, _ := doublestar.Match(a, b); m {
		return true
	}
	if m, _ := doublestar.Match(b, a); m {
		return true
	}
	base := func(p string) string {
		if i := strings.IndexAny(p, "*?["); i >= 0 {
			return p[:i]
		}
		return p
	}
	ab, bb := base(a), base(b)
	return strings.HasPrefix(ab, bb) || strings.HasPrefix(bb, ab)
}

func main() {
	dir := flag.String("dir", ".beads", "store directory")
	flag.Parse()
	args := flag.Args()
	switch {
	case len(args) == 3 && args[0] == "reserve":
		path := filepath.Join(*dir, "queen_reservations.jsonl")
		latest := map[string]*reservation{}
		all := readAll[reservation](path)
		for i := range all {
			latest[all[i].ID] = &all[i]
		}
		now := time.Now().UTC()
		conflicts := 0
		for _, r := range latest {
			if r.Status == "released" || r.ExpiresAt.Before(now) || r.Droid == args[2] {
				continue
			}
			if patternsOverlap(args[1], r.Pattern) {
				conflicts++
			}
		}
		rec := reservation{ID: fmt.Sprintf("qr-peer%d", now.UnixNano()), CreatedAt: now, ExpiresAt: now.Add(2 * time.Hour),
			Pattern: args[1], Droid: args[2], Status: "active", Exclusive: true}
		appendLine(path, rec)
		fmt.Println(conflicts, "conflicts")
	case len(args) == 5 && args[0] == "send":
		// MessageStore.Send: a new id and time, one append (JSONLStore.Append).
		now := time.Now().UTC()
		m := message{ID: fmt.Sprintf("qm-peer%d", now.UnixNano()), CreatedAt: now, From: args[1], To: args[2],
			Subject: args[3], Body: args[4], Importance: "normal"}
		appendLine(filepath.Join(*dir, "queen_messages.jsonl"), m)
		fmt.Println("sent", m.ID)
	case len(args) == 2 && args[0] == "inbox":
		latest := map[string]*message{}
		all := readAll[message](filepath.Join(*dir, "queen_messages.jsonl"))
		for i := range all {
			latest[all[i].ID] = &all[i]
		}
		var inbox []message
		for _, m := range latest {
			if !m.Deleted && m.To == args[1] {
				inbox = append(inbox, *m)
			}
		}
		sort.Slice(inbox, func(i, j int) bool { return inbox[i].CreatedAt.After(inbox[j].CreatedAt) })
		w := bufio.NewWriter(os.Stdout)
		for _, m := range inbox {
			fmt.Fprintf(w, "%s\t%s\t%s\n", m.ID, m.From, m.Subject)
		}
		w.Flush()
	default:
		log.Fatal("usage: seedpeer -dir DIR reserve PATTERN DROID | inbox DROID")
	}
}
