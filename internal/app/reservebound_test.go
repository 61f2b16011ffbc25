package app

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/testgit"
)

// A request of more distinct patterns than the repository can hold is
// refused once they pass the bound, before the rest are normalised (a
// pattern past the bound that would not normalise is never reached); the
// spellings of one pattern count once, as reserve stores them.
func TestReserveRefusesTooManyPatternsBeforeNormalisingTheRest(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	e := &Env{Dir: repo, Getenv: func(string) string { return "" }, Now: time.Now, Warn: io.Discard, Droid: "ann"}

	var spellings []string
	for i := range 2000 {
		spellings = append(spellings, fmt.Sprintf("d%d", i), fmt.Sprintf("d%d/", i), fmt.Sprintf("d%d/**", i))
	}
	res, err := Reserve.Run(e, ReserveRequest{Patterns: spellings})
	if err != nil || len(res.Granted) != 2000 {
		t.Fatalf("6,000 spellings of 2,000 patterns: %v, want the 2,000 granted", err)
	}

	many := make([]string, 0, records.MaxActiveReservations+2)
	for i := range records.MaxActiveReservations + 1 {
		many = append(many, fmt.Sprintf("e%d/**", i))
	}
	many = append(many, "[unclosed")
	_, err = Reserve.Run(&Env{Dir: repo, Getenv: e.Getenv, Now: time.Now, Warn: io.Discard, Droid: "bob"}, ReserveRequest{Patterns: many})
	var tooMany *reservations.TooManyError
	if !errors.As(err, &tooMany) {
		t.Fatalf("%d distinct patterns and a bad one after them: %v, want the count refused", len(many)-1, err)
	}
	want := fmt.Sprintf("nothing was reserved: 2000 reservations are active in this repository (every droid's), and more than %d more would pass the %d",
		records.MaxActiveReservations, records.MaxActiveReservations)
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("refusal %q, want it to begin %q", err, want)
	}
}

// A request longer than one batch says its notes in the order a short one
// does: the patterns symlinks led elsewhere first, then what each became.
func TestReserveNotesKeepTheirOrderPastOneBatch(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	testgit.Write(t, repo, "src/x.go", "x\n")
	if err := os.Symlink("src", filepath.Join(repo, "lnk")); err != nil {
		t.Fatal(err)
	}
	e := &Env{Dir: repo, Getenv: func(string) string { return "" }, Now: time.Now, Warn: io.Discard, Droid: "ann"}
	patterns := []string{"d0"} // does not exist yet: a note
	for range records.MaxActiveReservations + 1 {
		patterns = append(patterns, "d0/") // no note
	}
	patterns = append(patterns, "lnk/a.go") // in the second batch: a symlink's note
	res, err := Reserve.Run(e, ReserveRequest{Patterns: patterns})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Notes) < 2 || !strings.HasPrefix(res.Notes[0], "lnk/a.go is src/a.go") || !strings.HasPrefix(res.Notes[1], "d0 does not exist yet") {
		t.Errorf("notes %q, want the symlink's first, then d0's", res.Notes)
	}
}
