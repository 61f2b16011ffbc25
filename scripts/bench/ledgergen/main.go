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
	"crypto/rand"
	"flag"
	"fmt"
	"io"
	"log"
	mrand "math/rand/v2"
	"os"
	"strconv"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/ledger"
)

func main() {
	gitDir := flag.String("git-dir", "", "record on this repository's ledger (its common git directory, or a bare repository)")
	appendTo := flag.String("append", "", "append fresh versions, written now, to this log")
	out := flag.String("out", "", "write the versions to this file (replacing it)")
	n := flag.Int("messages", 1000, "message versions")
	nres := flag.Int("reservations", 0, "active reservations, written now (with -git-dir)")
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
	if modes != 1 || *n < 0 || *nres < 0 || *batch < 1 || *nres > 0 && *gitDir == "" {
		log.Fatal("name one of -git-dir, -append, -out; -messages and -batch must be positive; -reservations goes with -git-dir")
	}
	now := time.Now().UTC()
	g := &gen{rng: mrand.New(mrand.NewPCG(42, uint64(now.UnixNano()))), droids: *droids}
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
		write(f, *n, g, at)
		if err := f.Close(); err != nil {
			log.Fatal(err)
		}
	default:
		if err := record(*gitDir, *n, *nres, *batch, g, at, now); err != nil {
			log.Fatal(err)
		}
	}
}

func write(w io.Writer, n int, g *gen, at func(int) time.Time) {
	bw := bufio.NewWriterSize(w, 1<<20)
	for i := range n {
		bw.Write(g.message(at(i)))
		bw.WriteByte('\n')
	}
	if err := bw.Flush(); err != nil {
		log.Fatal(err)
	}
}

func record(gitDir string, n, nres, batch int, g *gen, at func(int) time.Time, now time.Time) error {
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
			lines[j] = g.message(last)
		}
		sig := ledger.Signature{Name: fmt.Sprintf("droid-%d", g.rng.IntN(g.droids)), Email: "git-queen@" + host, When: last}
		if tip, err = l.Record(tip, ledger.Lines{records.MessagesFile: lines}, sig, fmt.Sprintf("queen: record %d messages", k)); err != nil {
			return err
		}
		i += k
	}
	if nres > 0 {
		lines := make([][]byte, nres)
		for i := range lines {
			lines[i] = g.reservation(now)
		}
		sig := ledger.Signature{Name: "droid-other", Email: "git-queen@" + host, When: now}
		if tip, err = l.Record(tip, ledger.Lines{records.ReservationsFile: lines}, sig, fmt.Sprintf("queen: record %d reservations", nres)); err != nil {
			return err
		}
	}
	if err := l.Refs().Update(ledger.Ref, start, tip); err != nil {
		return err
	}
	fmt.Printf("%s %s: %d messages, %d reservations added\n", ledger.Ref, tip, n, nres)
	return nil
}

// gen makes message versions shaped as seed 002's: ids, droids, subject,
// a body of some 250 characters, thread and issue, importance, read flag.
type gen struct {
	rng     *mrand.Rand
	droids  int
	entropy io.Reader
}

var words = []string{"please", "review", "the", "reservation", "on", "src", "api", "tests", "fail", "after", "merge",
	"rebase", "onto", "main", "and", "rerun", "suite", "thanks"}

func (g *gen) message(t time.Time) []byte {
	if g.entropy == nil {
		g.entropy = ulid.Monotonic(rand.Reader, 0)
	}
	ts := t.Format("2006-01-02T15:04:05.000Z")
	b := make([]byte, 0, 600)
	b = append(b, `{"id":"qm-`...)
	b = append(b, ulid.MustNew(ulid.Timestamp(t), g.entropy).String()...)
	b = append(b, `","created_at":"`...)
	b = append(b, ts...)
	b = append(b, `","updated_at":"`...)
	b = append(b, ts...)
	b = append(b, `","from":"droid-`...)
	b = strconv.AppendInt(b, int64(g.rng.IntN(g.droids)), 10)
	b = append(b, `","to":"droid-`...)
	b = strconv.AppendInt(b, int64(g.rng.IntN(g.droids)), 10)
	b = append(b, `","subject":"About qb-`...)
	b = strconv.AppendInt(b, int64(g.rng.IntN(2000)), 10)
	b = append(b, `","body":"`...)
	for n := 0; n < 250; {
		w := words[g.rng.IntN(len(words))]
		if n > 0 {
			b = append(b, ' ')
			n++
		}
		b = append(b, w...)
		n += len(w)
	}
	b = append(b, `","thread_id":"qb-`...)
	b = strconv.AppendInt(b, int64(g.rng.IntN(2000)), 10)
	b = append(b, `","issue_id":"qb-`...)
	b = strconv.AppendInt(b, int64(g.rng.IntN(2000)), 10)
	b = append(b, `","importance":"normal","read":`...)
	b = strconv.AppendBool(b, g.rng.IntN(3) == 0)
	b = append(b, '}')
	return b
}

// reservation is an active reservation of another droid, made at t for
// two hours, on paths the hook benchmark never stages.
func (g *gen) reservation(t time.Time) []byte {
	if g.entropy == nil {
		g.entropy = ulid.Monotonic(rand.Reader, 0)
	}
	ts := t.Format("2006-01-02T15:04:05.000Z")
	var pattern string
	switch g.rng.IntN(3) {
	case 0:
		pattern = fmt.Sprintf("src/pkg%d/**", g.rng.IntN(400))
	case 1:
		pattern = fmt.Sprintf("internal/mod%d/*.go", g.rng.IntN(200))
	default:
		pattern = fmt.Sprintf("docs/topic%d/**/*.md", g.rng.IntN(100))
	}
	return fmt.Appendf(nil, `{"id":"qr-%s","created_at":"%s","updated_at":"%s","expires_at":"%s","pattern":"%s","droid":"droid-other-%d","status":"active","exclusive":%t}`,
		ulid.MustNew(ulid.Timestamp(t), g.entropy), ts, ts, t.Add(2*time.Hour).Format("2006-01-02T15:04:05.000Z"),
		pattern, g.rng.IntN(g.droids), g.rng.IntN(2) == 0)
}
