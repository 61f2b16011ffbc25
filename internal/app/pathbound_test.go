package app

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/base/globs"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/testgit"
)

// A path or a pattern longer than any file system holds is refused as bad
// input by every use case that takes one, before anything looks it up: no
// git runs (there is none on PATH to run). check of one path 20,000 parts
// deep cost 32 s; one of the longest a file system holds is judged.
func TestOverLongPathsAreRefusedBeforeAnyLookup(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	e := &Env{Dir: repo, Getenv: func(string) string { return "" }, Now: time.Now, Warn: io.Discard, Droid: "ann"}
	longest := strings.Repeat("a/", globs.MaxLen/2-2) + "x.go"
	if res, err := Check.Run(e, CheckRequest{Paths: []string{longest}}); err != nil || !res.Paths[0].Free {
		t.Fatalf("check of a path of %d bytes: %+v, %v, want it free", len(longest), res, err)
	}
	tooLong := longest + "x"
	t.Setenv("PATH", t.TempDir())
	for name, run := range map[string]func() error{
		"check":        func() error { _, err := Check.Run(e, CheckRequest{Paths: []string{"README", tooLong}}); return err },
		"reservations": func() error { _, err := Reservations.Run(e, ReservationsRequest{Path: tooLong}); return err },
		"reserve": func() error {
			_, err := Reserve.Run(e, ReserveRequest{Patterns: []string{"README", tooLong}})
			return err
		},
		"release": func() error { _, err := Release.Run(e, ReleaseRequest{Patterns: []string{tooLong}}); return err },
		"renew": func() error {
			_, err := Renew.Run(e, RenewRequest{ReleaseRequest: ReleaseRequest{Patterns: []string{tooLong}}})
			return err
		},
		"the edit guard": func() error { _, _, err := EditHolds(e, repo, []string{"README", tooLong}); return err },
	} {
		err := run()
		if !errors.As(err, new(*records.InvalidError)) || !strings.Contains(err.Error(), `"a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/"... is 4097 bytes long: `+
			"no file system git runs on holds a path of more than 4096 bytes") {
			t.Errorf("%s of a path of %d bytes: %v, want it refused as too long", name, len(tooLong), err)
		}
	}
}

// check judges at most maxCheckPaths distinct paths a call, as reserve
// takes as many patterns: its answer names each (300,000 cost 14 s), and
// more are refused as bad input; a path given again counts once.
func TestCheckRefusesMorePathsThanItsBound(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	e := &Env{Dir: repo, Getenv: func(string) string { return "" }, Now: time.Now, Warn: io.Discard, Droid: "ann"}
	if res, err := Check.Run(e, CheckRequest{Paths: slices.Repeat([]string{"README", "src/a.go"}, maxCheckPaths)}); err != nil || len(res.Paths) != 2 {
		t.Fatalf("check of two paths, each %d times: %v, want both judged once", maxCheckPaths, err)
	}
	paths := make([]string, maxCheckPaths+1)
	for i := range paths {
		paths[i] = fmt.Sprintf("d/%d.go", i)
	}
	if _, err := Check.Run(e, CheckRequest{Paths: paths}); !errors.As(err, new(*UsageError)) || !strings.Contains(err.Error(), "at most 4096 paths") {
		t.Errorf("check of %d paths: %v, want it refused as a usage error", len(paths), err)
	}
}
