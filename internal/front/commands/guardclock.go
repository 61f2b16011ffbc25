package commands

import (
	"fmt"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
)

// guardEnv is e as a guard (the commit and push hooks, check --hook) runs
// with. QUEEN_NOW gives the end-to-end tests one clock for every process;
// set later than this machine's clock, it would make every reservation look
// expired and let changes to reserved paths through, unnoticed in any log.
// So a guard honours it only when it is not later than the real time by
// more than the skew every clone tolerates (an earlier clock can only keep
// more reservations in force), and says so when it does not.
func (e *Env) guardEnv() *Env {
	if e.Getenv == nil || e.Getenv("QUEEN_NOW") == "" {
		return e
	}
	real := time.Now()
	if !e.Now().After(real.Add(records.MaxClockSkew)) {
		return e
	}
	fmt.Fprintf(e.Stderr, "git-queen: warning: ignoring QUEEN_NOW=%s, a test clock %s ahead of this machine's; "+
		"reservations are judged at the real time\n", e.Getenv("QUEEN_NOW"), records.ShortDuration(e.Now().Sub(real)))
	c := *e
	c.Now = time.Now
	return &c
}
