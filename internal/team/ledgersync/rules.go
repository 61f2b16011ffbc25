package ledgersync

import (
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
)

// brokenRule says which rule a version another clone wrote breaks, and how
// ("" when none): every rule local writes obey (records.CheckVersion), with
// the reservations that can no longer hold at now vetted cheaply (see
// records.CheckVersionBefore).
func brokenRule(file string, line []byte, now time.Time) (rule, msg string) {
	if e := records.CheckVersionBefore(file, line, now); e != nil {
		return e.Rule, e.Msg
	}
	return "", ""
}
