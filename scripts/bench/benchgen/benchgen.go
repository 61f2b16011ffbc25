// Package benchgen makes the records and files the benchmarks' generators
// write (genstore, ledgergen, mergegen), so that each shapes a message or
// a reservation pattern one way: QueenBee message versions (seed 002)
// among many droids, and reservation patterns of the kinds a team holds,
// none of them on app/, where the hook benchmarks stage their paths.
package benchgen

import (
	"bufio"
	"crypto/rand"
	"fmt"
	"io"
	"log"
	mrand "math/rand/v2"
	"os"
	"strconv"
	"time"

	"github.com/oklog/ulid/v2"
)

// Gen makes records from one random source, among Droids droids.
type Gen struct {
	Rng     *mrand.Rand
	Droids  int
	entropy io.Reader
}

// Timestamp is t as seed 002's records write it.
func Timestamp(t time.Time) string { return t.Format("2006-01-02T15:04:05.000Z") }

// ID is a new id with prefix ("qm-", "qr-") made at t.
func (g *Gen) ID(prefix string, t time.Time) string {
	if g.entropy == nil {
		g.entropy = ulid.Monotonic(rand.Reader, 0)
	}
	return prefix + ulid.MustNew(ulid.Timestamp(t), g.entropy).String()
}

// Droid is one of the droids, at random.
func (g *Gen) Droid() string { return "droid-" + strconv.Itoa(g.Rng.IntN(g.Droids)) }

// Pattern is a reservation pattern of one of the kinds a team holds.
func (g *Gen) Pattern() string {
	switch g.Rng.IntN(4) {
	case 0:
		return fmt.Sprintf("src/pkg%d/**", g.Rng.IntN(400))
	case 1:
		return fmt.Sprintf("src/pkg%d/file%d.go", g.Rng.IntN(400), g.Rng.IntN(50))
	case 2:
		return fmt.Sprintf("internal/mod%d/*.go", g.Rng.IntN(200))
	default:
		return fmt.Sprintf("docs/topic%d/**/*.md", g.Rng.IntN(100))
	}
}

var words = []string{"please", "review", "the", "reservation", "on", "src", "api", "tests", "fail", "after", "merge",
	"rebase", "onto", "main", "and", "rerun", "suite", "thanks"}

// Message is a message version created at t, shaped as seed 002's: id,
// times, droids, subject, a body of some bodyChars characters, thread and
// issue, importance, read flag.
func (g *Gen) Message(t time.Time, bodyChars int) []byte {
	ts := Timestamp(t)
	b := make([]byte, 0, 350+bodyChars)
	b = append(b, `{"id":"`...)
	b = append(b, g.ID("qm-", t)...)
	b = append(b, `","created_at":"`...)
	b = append(b, ts...)
	b = append(b, `","updated_at":"`...)
	b = append(b, ts...)
	b = append(b, `","from":"`...)
	b = append(b, g.Droid()...)
	b = append(b, `","to":"`...)
	b = append(b, g.Droid()...)
	b = append(b, `","subject":"About qb-`...)
	b = strconv.AppendInt(b, int64(g.Rng.IntN(2000)), 10)
	b = append(b, `","body":"`...)
	for n := 0; n < bodyChars; {
		w := words[g.Rng.IntN(len(words))]
		if n > 0 {
			b = append(b, ' ')
			n++
		}
		b = append(b, w...)
		n += len(w)
	}
	b = append(b, `","thread_id":"qb-`...)
	b = strconv.AppendInt(b, int64(g.Rng.IntN(2000)), 10)
	b = append(b, `","issue_id":"qb-`...)
	b = strconv.AppendInt(b, int64(g.Rng.IntN(2000)), 10)
	b = append(b, `","importance":"normal","read":`...)
	b = strconv.AppendBool(b, g.Rng.IntN(3) == 0)
	return append(b, '}')
}

// Write writes f with fill's output through a large buffer, and stops the
// program when that fails.
func Write(f *os.File, fill func(w *bufio.Writer)) {
	w := bufio.NewWriterSize(f, 1<<20)
	fill(w)
	if err := w.Flush(); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}

// Create writes the file at path (replacing it) with fill's output.
func Create(path string, fill func(w *bufio.Writer)) {
	f, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	Write(f, fill)
}
