package ledgersync

import (
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/gitrepo/object"
)

// The stop on a commit over queen.maxReceive says how much it brings and
// the bound in a unit that shows them: under 1 MiB it said "at least 0
// MiB" of a bound of "0 MiB".
func TestOverBoundSaysTheAmounts(t *testing.T) {
	for _, tt := range []struct {
		brings, limit int64
		want          string
	}{
		{1100, 1 << 10, "at least 1 KiB of new chunks, more than one sync takes (queen.maxReceive, 1 KiB); " +
			"if that is your team's history, raise it: git config queen.maxReceive 64MiB"},
		{600 << 10, 512 << 10, "at least 600 KiB of new chunks, more than one sync takes (queen.maxReceive, 512 KiB)"},
		{900, 500, "at least 900 bytes of new chunks, more than one sync takes (queen.maxReceive, 500 bytes)"},
		{80 << 20, 1 << 20, "at least 80 MiB of new chunks, more than one sync takes (queen.maxReceive, 1 MiB); " +
			"if that is your team's history, raise it: git config queen.maxReceive 144MiB"},
		{3 << 20, 512 << 10, "at least 3 MiB of new chunks, more than one sync takes (queen.maxReceive, 512 KiB)"},
	} {
		if got := overBound(object.ID{}, tt.brings, tt.limit).Error(); !strings.Contains(got, tt.want) {
			t.Errorf("brings %d, limit %d:\n got %s\nwant %s", tt.brings, tt.limit, got, tt.want)
		}
	}
}
