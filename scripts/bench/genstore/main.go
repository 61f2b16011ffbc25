// Command genstore writes a large, realistic .beads/ store for the store
// benchmarks: reservation history with some active reservations, and a
// message log among many droids.
//
//	go run ./scripts/bench/genstore -dir REPO/.beads -reservations 100000 -active 1000 -messages 100000
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/git-queen/git-queen/internal/format/records"
)

func main() {
	dir := flag.String("dir", ".beads", "store directory to write")
	nRes := flag.Int("reservations", 100_000, "reservation lines (history plus active)")
	nActive := flag.Int("active", 1_000, "active reservations among them")
	nMsg := flag.Int("messages", 100_000, "message lines")
	droids := flag.Int("droids", 20, "droids")
	flag.Parse()
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		log.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(42, 7))
	now := time.Now().UTC()
	id := func(prefix string, t time.Time) string {
		return prefix + ulid.MustNew(ulid.Timestamp(t), ulid.DefaultEntropy()).String()
	}
	ts := func(t time.Time) string { return t.Format("2006-01-02T15:04:05.000Z") }
	write := func(name string, fill func(w *bufio.Writer)) {
		f, err := os.Create(filepath.Join(*dir, name))
		if err != nil {
			log.Fatal(err)
		}
		w := bufio.NewWriterSize(f, 1<<20)
		fill(w)
		if err := w.Flush(); err != nil {
			log.Fatal(err)
		}
		f.Close()
	}
	line := func(w *bufio.Writer, v map[string]any) {
		b, _ := json.Marshal(v)
		w.Write(b)
		w.WriteByte('\n')
	}
	pattern := func() string {
		switch rng.IntN(4) {
		case 0:
			return fmt.Sprintf("src/pkg%d/**", rng.IntN(400))
		case 1:
			return fmt.Sprintf("src/pkg%d/file%d.go", rng.IntN(400), rng.IntN(50))
		case 2:
			return fmt.Sprintf("internal/mod%d/*.go", rng.IntN(200))
		default:
			return fmt.Sprintf("docs/topic%d/**/*.md", rng.IntN(100))
		}
	}
	write(records.ReservationsFile, func(w *bufio.Writer) {
		history := (*nRes - *nActive) / 2 // each historical one: created, then released
		for i := range history {
			created := now.Add(-30 * 24 * time.Hour).Add(time.Duration(float64(29*24*time.Hour) * float64(i) / float64(history)))
			rec := map[string]any{"id": id("qr-", created), "created_at": ts(created), "updated_at": ts(created),
				"expires_at": ts(created.Add(2 * time.Hour)), "pattern": pattern(), "droid": fmt.Sprintf("droid-%d", rng.IntN(*droids)),
				"issue_id": fmt.Sprintf("qb-%d", rng.IntN(2000)), "status": "active", "exclusive": rng.IntN(2) == 0, "reason": "working on it"}
			line(w, rec)
			released := created.Add(time.Duration(rng.IntN(90)) * time.Minute)
			rec["status"], rec["released_at"], rec["updated_at"] = "released", ts(released), ts(released)
			line(w, rec)
		}
		for range *nActive {
			created := now.Add(-time.Duration(rng.IntN(60)) * time.Minute)
			line(w, map[string]any{"id": id("qr-", created), "created_at": ts(created), "updated_at": ts(created),
				"expires_at": ts(created.Add(2 * time.Hour)), "pattern": pattern(), "droid": fmt.Sprintf("droid-%d", rng.IntN(*droids)),
				"status": "active", "exclusive": rng.IntN(2) == 0})
		}
	})
	write(records.MessagesFile, func(w *bufio.Writer) {
		words := strings.Fields("please review the reservation on src api tests fail after merge rebase onto main and rerun the suite thanks")
		for i := range *nMsg {
			created := now.Add(-30 * 24 * time.Hour).Add(time.Duration(float64(30*24*time.Hour) * float64(i) / float64(*nMsg)))
			var body strings.Builder
			for body.Len() < 300 {
				body.WriteString(words[rng.IntN(len(words))] + " ")
			}
			line(w, map[string]any{"id": id("qm-", created), "created_at": ts(created), "updated_at": ts(created),
				"from": fmt.Sprintf("droid-%d", rng.IntN(*droids)), "to": fmt.Sprintf("droid-%d", rng.IntN(*droids)),
				"subject": fmt.Sprintf("About qb-%d", rng.IntN(2000)), "body": body.String(), "thread_id": fmt.Sprintf("qb-%d", rng.IntN(2000)),
				"issue_id": fmt.Sprintf("qb-%d", rng.IntN(2000)), "importance": "normal", "read": rng.IntN(3) == 0})
		}
	})
}
