package messages

import (
	"slices"

	presence "github.com/git-queen/git-queen/internal/domain/roster"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// withSighted is known and the droids only seen running commands (their
// presence records, package roster), sorted: the names a refused
// recipient is compared with, so that "did you mean" names a droid that
// has run commands here but has written nothing yet.
func withSighted(s *store.Store, known []string) ([]string, error) {
	sightings, err := (&presence.Store{S: s}).Sightings()
	if err != nil {
		return nil, err
	}
	out := slices.Clone(known)
	for _, x := range sightings {
		out = append(out, x.Droid)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}
