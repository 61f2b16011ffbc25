package app

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/domain/assignments"
	"github.com/git-queen/git-queen/internal/domain/work"
	"github.com/git-queen/git-queen/internal/testgit"
)

// ready --claim that loses the last ready item to another droid (which
// claimed it between the ranking and the claim) exits 5 naming the winner,
// but does not advise claim's force: ready has no such switch, and a droid
// taking work from the list takes what is free, not what another holds.
// (It said "use --force to reassign it", which `ready --force` refuses.)
func TestReadyClaimLostSaysNothingOfForce(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	os.MkdirAll(filepath.Join(repo, ".beads"), 0o755)
	issues := `{"id":"qb-1","title":"one","status":"open","priority":2,"created_at":"2026-11-01T00:00:00Z"}` + "\n"
	if err := os.WriteFile(filepath.Join(repo, ".beads", "issues.jsonl"), []byte(issues), 0o644); err != nil {
		t.Fatal(err)
	}
	as := func(droid string) *Env {
		return &Env{Dir: repo, Getenv: func(string) string { return "" }, Now: time.Now, Warn: io.Discard, Droid: droid}
	}
	e := as("ann")
	s, err := e.OpenStore()
	if err != nil {
		t.Fatal(err)
	}
	pool, res, err := e.readWork(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	res.me = "ann"
	nothingTaken := work.Taken{Assigned: map[string]string{}, Reserved: map[string]string{}}
	res.Ready, res.More, res.Counts = pool.Ready(nothingTaken, 0) // ann's ranking, before bob's claim
	won, err := Claim.Run(as("bob"), ClaimRequest{Issue: "qb-1"})
	if err != nil {
		t.Fatal(err)
	}
	err = e.claimFirst(s, ReadyRequest{Claim: true}, pool, res)
	var lost *assignments.AlreadyAssignedError
	if !errors.As(err, &lost) || lost.Active.Droid != "bob" {
		t.Fatalf("ready --claim after bob's claim: %v, want the refusal naming bob's assignment", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "bob ("+won.Assigned.ID) || strings.Contains(msg, "force") {
		t.Errorf("ready --claim's refusal says %q: want it to name bob (%s) and no force", msg, won.Assigned.ID)
	}
	if len(res.Lost) != 1 || res.Lost[0].ID != "qb-1" || res.Lost[0].Droid != "bob" {
		t.Errorf("lost: %+v, want qb-1 to bob", res.Lost)
	}
}
