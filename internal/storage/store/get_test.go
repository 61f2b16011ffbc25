package store

import (
	"testing"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// Get answers for one id what Select answers across the log's sources,
// whichever source holds the newer version, before and after the writer
// keeps an index of its log.
func TestGetAnswersAsSelectAcrossSources(t *testing.T) {
	tests := []struct {
		name          string
		own, received []string
	}{
		{"one source, the newest not last", []string{a3, b1, a1}, nil},
		{"newer in the received log", []string{a1, b1}, []string{a2}},
		{"newer in this clone's log", []string{a3}, []string{a2, c1}},
		{"the same version in both", []string{a1}, []string{a1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := repoStore(t)
			write(t, s.Log(records.MessagesFile).Path, tt.own...)
			if tt.received != nil {
				write(t, ReceivedPath(s.WS, records.MessagesFile), tt.received...)
			}
			check := func(step string) {
				t.Helper()
				sel, err := s.Select(records.MessagesFile, Query{})
				if err != nil {
					t.Fatal(err)
				}
				for _, want := range sel.Entries {
					got, found, err := s.Get(records.MessagesFile, want.ID)
					if err != nil || !found || string(got.Raw) != string(want.Raw) {
						t.Errorf("%s: Get(%s) = %s (found %v, %v), Select has %s", step, want.ID, got.Raw, found, err, want.Raw)
					}
				}
				if _, found, err := s.Get(records.MessagesFile, "qm-none"); found || err != nil {
					t.Errorf("%s: an id no source holds: found %v, %v", step, found, err)
				}
			}
			check("logs written by another program")
			err := s.Update(func(tx *jsonl.Tx) error {
				return tx.Append(s.Log(records.MessagesFile), []byte(`{"id":"qm-d","updated_at":"2026-12-01T00:00:00Z"}`))
			})
			if err != nil {
				t.Fatal(err)
			}
			check("after the writer's append")
		})
	}
}
