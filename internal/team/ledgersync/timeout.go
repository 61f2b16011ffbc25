package ledgersync

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/git-queen/git-queen/internal/gitrepo"
)

// DefaultTimeout bounds each git process that talks to a remote (a fetch,
// a push, doctor's ls-remote) unless queen.timeout or QUEEN_TIMEOUT says
// otherwise. The ledger is small (a sync moves kilobytes, a first fetch of
// a year's records a few megabytes), and a healthy remote answers a fetch
// or push of it in well under a second on a LAN and in a few seconds over
// ssh or HTTPS across the Internet; 30 s leaves ten times that, and stays
// under the 60 s an MCP client waits for a tool, so an agent hears our
// message rather than its client's timeout. A slow link or a very large
// first fetch raises it.
const DefaultTimeout = 30 * time.Second

// TimeoutKey is the git configuration key of the network timeout.
const TimeoutKey = "queen.timeout"

// ParseTimeout reads a network timeout: a duration (45s, 2m, 1m30s) or a
// whole number of seconds (45). It must be positive: every network
// operation is bounded.
func ParseTimeout(v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	d, err := time.ParseDuration(v)
	if n, nerr := strconv.Atoi(v); nerr == nil {
		d, err = time.Duration(n)*time.Second, nil
	}
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("network timeout %q: give a positive duration such as 30s or 2m (or a number of seconds)", v)
	}
	return d, nil
}

// ConfiguredTimeout is the network timeout git configuration sets for
// repo (queen.timeout, in any scope), or DefaultTimeout.
func ConfiguredTimeout(repo *gitrepo.Repo) (time.Duration, error) {
	v, ok := repo.ReadConfig().Get(TimeoutKey)
	if !ok {
		return DefaultTimeout, nil
	}
	d, err := ParseTimeout(v)
	if err != nil {
		return 0, fmt.Errorf("%s: %w (git config %s 30s)", TimeoutKey, err, TimeoutKey)
	}
	return d, nil
}

// timeout is the limit of this syncer's network operations: Timeout when
// the caller set it, else the configured one, read once.
func (s *Syncer) timeout() (time.Duration, error) {
	if s.Timeout > 0 {
		return s.Timeout, nil
	}
	d, err := ConfiguredTimeout(s.S.WS.Repo)
	if err == nil {
		s.Timeout = d
	}
	return d, err
}
