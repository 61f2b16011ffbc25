// Command genstore writes a large, realistic .beads/ store for the store
// benchmarks: reservation history with some active reservations, a
// message log among many droids, and (with -ended) assignment
// history with some active assignments.
//
//	go run ./scripts/bench/genstore -dir REPO/.beads -reservations 100000 -active 1000 -messages 100000
//	go run ./scripts/bench/genstore -dir REPO/.beads -ended 100000 -assigned 10
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
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/scripts/bench/benchgen"
)

func main() {
	dir := flag.String("dir", ".beads", "store directory to write")
	nRes := flag.Int("reservations", 100_000, "reservation lines (history plus active)")
	nActive := flag.Int("active", 1_000, "active reservations among them")
	nMsg := flag.Int("messages", 100_000, "message lines")
	droids := flag.Int("droids", 20, "droids")
	nEnded := flag.Int("ended", 0, "ended assignments (each an active version, then its end)")
	nAssigned := flag.Int("assigned", 10, "active assignments, with -ended")
	flag.Parse()
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		log.Fatal(err)
	}
	g := &benchgen.Gen{Rng: rand.New(rand.NewPCG(42, 7)), Droids: *droids}
	now := time.Now().UTC()
	ts := benchgen.Timestamp
	line := func(w *bufio.Writer, v map[string]any) {
		b, _ := json.Marshal(v)
		w.Write(b)
		w.WriteByte('\n')
	}
	benchgen.Create(filepath.Join(*dir, records.ReservationsFile), func(w *bufio.Writer) {
		history := (*nRes - *nActive) / 2 // each historical one: created, then released
		for i := range history {
			created := now.Add(-30 * 24 * time.Hour).Add(time.Duration(float64(29*24*time.Hour) * float64(i) / float64(history)))
			rec := map[string]any{"id": g.ID("qr-", created), "created_at": ts(created), "updated_at": ts(created),
				"expires_at": ts(created.Add(2 * time.Hour)), "pattern": g.Pattern(), "droid": g.Droid(),
				"issue_id": fmt.Sprintf("qb-%d", g.Rng.IntN(2000)), "status": "active", "exclusive": g.Rng.IntN(2) == 0, "reason": "working on it"}
			line(w, rec)
			released := created.Add(time.Duration(g.Rng.IntN(90)) * time.Minute)
			rec["status"], rec["released_at"], rec["updated_at"] = "released", ts(released), ts(released)
			line(w, rec)
		}
		for range *nActive {
			created := now.Add(-time.Duration(g.Rng.IntN(60)) * time.Minute)
			line(w, map[string]any{"id": g.ID("qr-", created), "created_at": ts(created), "updated_at": ts(created),
				"expires_at": ts(created.Add(2 * time.Hour)), "pattern": g.Pattern(), "droid": g.Droid(),
				"status": "active", "exclusive": g.Rng.IntN(2) == 0})
		}
	})
	benchgen.Create(filepath.Join(*dir, records.MessagesFile), func(w *bufio.Writer) {
		for i := range *nMsg {
			created := now.Add(-30 * 24 * time.Hour).Add(time.Duration(float64(30*24*time.Hour) * float64(i) / float64(*nMsg)))
			w.Write(g.Message(created, 300)) // some 570 bytes a record
			w.WriteByte('\n')
		}
	})
	if *nEnded > 0 {
		benchgen.Create(filepath.Join(*dir, records.AssignmentsFile), func(w *bufio.Writer) {
			ends := []string{records.AssignmentCompleted, records.AssignmentReleased}
			for i := range *nEnded + *nAssigned {
				// The history over the 29 days to yesterday, each ended an
				// hour on; the active ones in the last hour.
				created := now.Add(-30 * 24 * time.Hour).Add(time.Duration(float64(29*24*time.Hour) * float64(i) / float64(*nEnded)))
				if i >= *nEnded {
					created = now.Add(-time.Duration(*nEnded+*nAssigned-i) * time.Minute)
				}
				droid := g.Droid()
				rec := map[string]any{"id": g.ID("qa-", created), "created_at": ts(created), "updated_at": ts(created), "updated_by": droid,
					"issue_id": fmt.Sprintf("qb-%d", i), "droid": droid, "assigned_by": droid, "status": records.AssignmentActive}
				line(w, rec)
				if i < *nEnded {
					rec["status"], rec["updated_at"] = ends[i%2], ts(created.Add(time.Hour))
					line(w, rec)
				}
			}
		})
	}
}
