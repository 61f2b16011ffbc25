// Command seedpeer is the peer the store benchmarks measure git-queen
// against: seed 002's plan for QueenBee (ReadAll with bufio.Scanner and
// encoding/json into a struct per line, a latest-state map, the naive
// PatternsOverlap, one append), written out as it stands in the seed so both
// run on the same store in the same benchmark. Its records are the seed's
// structs as package records has them (the seed's fields and those added
// since, which the benchmark's lines may carry).
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

	"github.com/git-queen/git-queen/internal/format/records"
)

// latest is the seed's ReadAll and latest-state map: every line of the log
// at path decoded into a T, the last version of each id kept.
func latest[T any](path string, id func(*T) string) map[string]*T {
	out := map[string]*T{}
	f, err := os.Open(path)
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		r := new(T)
		if json.Unmarshal(sc.Bytes(), r) == nil {
			out[id(r)] = r
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
		now := time.Now().UTC()
		conflicts := 0
		for _, r := range latest(path, func(r *records.Reservation) string { return r.ID }) {
			if r.Status == "released" || r.ExpiresAt.Before(now) || r.Droid == args[2] {
				continue
			}
			if patternsOverlap(args[1], r.Pattern) {
				conflicts++
			}
		}
		rec := records.Reservation{ID: fmt.Sprintf("qr-peer%d", now.UnixNano()), CreatedAt: now, ExpiresAt: now.Add(2 * time.Hour),
			Pattern: args[1], Droid: args[2], Status: "active", Exclusive: true}
		appendLine(path, rec)
		fmt.Println(conflicts, "conflicts")
	case len(args) == 5 && args[0] == "send":
		// MessageStore.Send: a new id and time, one append (JSONLStore.Append).
		now := time.Now().UTC()
		m := records.Message{ID: fmt.Sprintf("qm-peer%d", now.UnixNano()), CreatedAt: now, From: args[1], To: args[2],
			Subject: args[3], Body: args[4], Importance: "normal"}
		appendLine(filepath.Join(*dir, "queen_messages.jsonl"), m)
		fmt.Println("sent", m.ID)
	case len(args) == 2 && args[0] == "inbox":
		var inbox []records.Message
		for _, m := range latest(filepath.Join(*dir, "queen_messages.jsonl"), func(m *records.Message) string { return m.ID }) {
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
