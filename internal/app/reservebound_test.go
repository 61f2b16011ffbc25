package app

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/testgit"
)

// A request of more distinct patterns than the repository can hold is
// refused before any is normalised (a bad pattern among them, first, is
// never reached); a pattern given twice counts once, and the spellings
// of one pattern are stored once.
func TestReserveRefusesTooManyPatternsBeforeNormalisingAny(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	e := &Env{Dir: repo, Getenv: func(string) string { return "" }, Now: time.Now, Warn: io.Discard, Droid: "ann"}

	var spellings []string
	for i := range 1000 {
		spellings = append(spellings, fmt.Sprintf("d%d", i), fmt.Sprintf("d%d/", i), fmt.Sprintf("d%d/**", i))
	}
	res, err := Reserve.Run(e, ReserveRequest{Patterns: slices.Concat(spellings, spellings, spellings)})
	if err != nil || len(res.Granted) != 1000 {
		t.Fatalf("9,000 patterns, 3,000 spellings of 1,000: %v, want the 1,000 granted", err)
	}

	many := []string{"[unclosed"}
	for i := range records.MaxActiveReservations {
		many = append(many, fmt.Sprintf("e%d/**", i))
	}
	_, err = Reserve.Run(&Env{Dir: repo, Getenv: e.Getenv, Now: time.Now, Warn: io.Discard, Droid: "bob"}, ReserveRequest{Patterns: many})
	var tooMany *reservations.TooManyError
	if !errors.As(err, &tooMany) {
		t.Fatalf("a bad pattern and %d distinct ones after it: %v, want the count refused", len(many)-1, err)
	}
	want := fmt.Sprintf("nothing was reserved: 1000 reservations are active in this repository (every droid's), and more than %d more would pass the %d",
		records.MaxActiveReservations, records.MaxActiveReservations)
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("refusal %q, want it to begin %q", err, want)
	}
}

// A request of more patterns than the bound, most of them one given again,
// says its notes in the order a short one does: the patterns symlinks led
// elsewhere first, then what each became.
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

// Release and renew refuse more distinct patterns than a droid can hold
// reservations before any is normalised (a bad pattern first is never
// reached; 60,000 cost 18 s, whatever the droid held); a pattern given
// again counts once.
func TestChangeRefusesMorePatternsThanADroidHolds(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	e := &Env{Dir: repo, Getenv: func(string) string { return "" }, Now: time.Now, Warn: io.Discard, Droid: "ann"}
	if _, err := Reserve.Run(e, ReserveRequest{Patterns: []string{"a.go"}}); err != nil {
		t.Fatal(err)
	}
	many := []string{"[unclosed"}
	for i := range records.MaxActiveReservations {
		many = append(many, fmt.Sprintf("e%d/**", i))
	}
	renew := func(e *Env, r ReleaseRequest) (*ChangeResult, error) {
		return Renew.Run(e, RenewRequest{ReleaseRequest: r})
	}
	for verb, change := range map[string]func(*Env, ReleaseRequest) (*ChangeResult, error){"renew": renew, "release": Release.Run} {
		_, err := change(e, ReleaseRequest{Patterns: many})
		if !errors.As(err, new(*UsageError)) || !strings.Contains(err.Error(), "a droid holds at most 4096 reservations") {
			t.Errorf("%s of a bad pattern and %d distinct ones: %v, want the count refused as a usage error", verb, len(many)-1, err)
		}
	}
	for _, change := range []func(*Env, ReleaseRequest) (*ChangeResult, error){renew, Release.Run} {
		res, err := change(e, ReleaseRequest{Patterns: slices.Repeat([]string{"a.go"}, records.MaxActiveReservations+1)})
		if err != nil || len(res.Changed) != 1 {
			t.Errorf("a.go, %d times: %v, want it changed once", records.MaxActiveReservations+1, err)
		}
	}
}
