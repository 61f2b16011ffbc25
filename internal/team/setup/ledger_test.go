package setup

import (
	"testing"

	"github.com/git-queen/git-queen/internal/team/ledgersync"
)

// TestSetAsideCounted: doctor's summary counts what syncs set aside by
// what it was; it said "1 commit or group of record versions" of a tag.
func TestSetAsideCounted(t *testing.T) {
	commit, tag, rule := ledgersync.SetAside{}, ledgersync.SetAside{Kind: "tag"}, ledgersync.SetAside{Rule: "r"}
	for _, tt := range []struct {
		notes []ledgersync.SetAside
		want  string
	}{
		{[]ledgersync.SetAside{tag}, "1 tag"},
		{[]ledgersync.SetAside{commit}, "1 commit"},
		{[]ledgersync.SetAside{rule, rule}, "2 groups of record versions"},
		{[]ledgersync.SetAside{commit, tag, commit, rule}, "2 commits, 1 tag, 1 group of record versions"},
	} {
		if got := setAsideCounted(tt.notes); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.notes, got, tt.want)
		}
	}
}
