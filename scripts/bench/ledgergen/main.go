// Command ledgergen writes large, realistic ledgers and logs for the sync
// and hook benchmarks: QueenBee message records (seed 002) of about 520
// bytes, with ULID ids (qm-...), spread evenly over the last few months;
// and active reservations (qr-...) of other droids, written now.
//
// Record N message versions on a repository's ledger (refs/queen/ledger),
// in commits of -batch versions, oldest first, as in-process ledger
// commits (package ledger), and move the ref with a compare-and-swap:
//
//	go run ./scripts/bench/ledgergen -git-dir REMOTE.git -messages 1000000 -months 4
//
// Record, on top of a ledger, N active reservations another clone made
// (none of them on app/, where the hook benchmark stages its paths):
//
//	go run ./scripts/bench/ledgergen -git-dir REMOTE.git -messages 0 -reservations 100
//
// Or N active assignments (each of its own issue, bd-gen-N), as a flood:
//
//	go run ./scripts/bench/ledgergen -git-dir REMOTE.git -messages 0 -assignments 1000000
//
// Append N fresh message versions, written now, to a live log (a
// benchmark's --prepare step):
//
//	go run ./scripts/bench/ledgergen -append REPO/.git/queen/queen_messages.jsonl -messages 100
//
// Write N message versions spread over the months to a file, as a plain log:
//
//	go run ./scripts/bench/ledgergen -out FILE -messages 100000
package main

import (
	"bufio"
	"flag"
	"fmt"
	"log"
	mrand "math/rand/v2"
	"os"
	"strings"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/scripts/bench/benchgen"
)

func main() {
	gitDir := flag.String("git-dir", "", "record on this repository's ledger (its common git directory, or a bare repository)")
	appendTo := flag.String("append", "", "append fresh versions, written now, to this log")
	out := flag.String("out", "", "write the versions to this file (replacing it)")
	n := flag.Int("messages", 1000, "message versions")
	nres := flag.Int("reservations", 0, "active reservations, written now (with -git-dir)")
	nasg := flag.Int("assignments", 0, "active assignments, written now (with -git-dir)")
	months := flag.Int("months", 4, "spread the versions evenly over this many months before now")
	batch := flag.Int("batch", 10000, "versions per ledger commit (with -git-dir)")
	droids := flag.Int("droids", 20, "droids")
	flag.Parse()
	modes := 0
	for _, s := range []string{*gitDir, *appendTo, *out} {
		if s != "" {
			modes++
		}
	}
	if modes != 1 || *n < 0 || *nres < 0 || *nasg < 0 || *batch < 1 || (*nres > 0 || *nasg > 0) && *gitDir == "" {
		log.Fatal("name one of -git-dir, -append, -out; -messages and -batch must be positive; -reservations and -assignments go with -git-dir")
	}
	now := time.Now().UTC()
	g := &benchgen.Gen{Rng: mrand.New(mrand.NewPCG(42, uint64(now.UnixNano()))), Droids: *droids}
	span := time.Duration(*months) * 30 * 24 * time.Hour
	at := func(i int) time.Time {
		if *appendTo != "" {
			return now
		}
		return now.Add(-span).Add(time.Duration(float64(span) * float64(i) / float64(max(*n, 1))))
	}
	switch {
	case *appendTo != "" || *out != "":
		path, flags, perm := *appendTo, os.O_WRONLY|os.O_APPEND|os.O_CREATE, os.FileMode(0o644)
		if *out != "" {
			path, flags, perm = *out, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666 // as os.Create: replacing it
		}
		f, err := os.OpenFile(path, flags, perm)
		if err != nil {
			log.Fatal(err)
		}
		benchgen.Write(f, func(w *bufio.Writer) {
			for i := range *n {
				w.Write(g.Message(at(i), messageBody))
				w.WriteByte('\n')
			}
		})
	default:
		if err := record(*gitDir, *n, *nres, *nasg, *batch, g, at, now); err != nil {
			log.Fatal(err)
		}
	}
}

// messageBody is how many characters a message's body has: about 520
// bytes a record.
const messageBody = 250

func record(gitDir string, n, nres, nasg, batch int, g *benchgen.Gen, at func(int) time.Time, now time.Time) error {
	l, err := ledger.Open(gitDir)
	if err != nil {
		return err
	}
	defer l.Close()
	start, err := l.Refs().Read(ledger.Ref)
	if err != nil {
		return err
	}
	tip := start
	host, _ := os.Hostname()
	for i := 0; i < n; {
		k := min(batch, n-i)
		lines := make([][]byte, k)
		var last time.Time
		for j := range k {
			last = at(i + j)
			lines[j] = g.Message(last, messageBody)
		}
		sig := ledger.Signature{Name: g.Droid(), Email: "git-queen@" + host, When: last}
		if tip, err = l.Record(tip, ledger.Lines{records.MessagesFile: lines}, sig, fmt.Sprintf("queen: record %d messages", k)); err != nil {
			return err
		}
		i += k
	}
	for _, others := range []struct {
		file string
		n    int
		make func(*benchgen.Gen, time.Time) []byte
	}{{records.ReservationsFile, nres, reservation}, {records.AssignmentsFile, nasg, assignment}} {
		if others.n == 0 {
			continue
		}
		lines := make([][]byte, others.n)
		for i := range lines {
			lines[i] = others.make(g, now)
		}
		sig := ledger.Signature{Name: "droid-other", Email: "git-queen@" + host, When: now}
		if tip, err = l.Record(tip, ledger.Lines{others.file: lines}, sig, fmt.Sprintf("queen: record %d versions", others.n)); err != nil {
			return err
		}
	}
	if err := l.Refs().Update(ledger.Ref, start, tip); err != nil {
		return err
	}
	fmt.Printf("%s %s: %d messages, %d reservations, %d assignments added\n", ledger.Ref, tip, n, nres, nasg)
	return nil
}

// reservation is an active reservation of another droid, made at t for
// two hours, on paths the hook benchmark never stages.
func reservation(g *benchgen.Gen, t time.Time) []byte {
	ts := benchgen.Timestamp(t)
	return fmt.Appendf(nil, `{"id":"%s","created_at":"%s","updated_at":"%s","expires_at":"%s","pattern":"%s","droid":"droid-other-%d","status":"active","exclusive":%t}`,
		g.ID("qr-", t), ts, ts, benchgen.Timestamp(t.Add(2*time.Hour)), g.Pattern(), g.Rng.IntN(g.Droids), g.Rng.IntN(2) == 0)
}

// assignment is an active assignment of another droid, made at t, of an
// issue of its own.
func assignment(g *benchgen.Gen, t time.Time) []byte {
	ts, id := benchgen.Timestamp(t), g.ID("qa-", t)
	droid := fmt.Sprintf("droid-other-%d", g.Rng.IntN(g.Droids))
	return fmt.Appendf(nil, `{"id":"%s","created_at":"%s","updated_at":"%s","issue_id":"bd-gen-%s","droid":"%s","assigned_by":"%s","status":"active","updated_by":"%s"}`,
		id, ts, ts, strings.ToLower(id[len(id)-10:]), droid, droid, droid)
}
