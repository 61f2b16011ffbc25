package app

import (
	"errors"
	"io"
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
