package app

import (
	"cmp"
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/git-queen/git-queen/internal/base/wording"
	"github.com/git-queen/git-queen/internal/domain/reservations"
)

// ParseDuration is the one duration syntax of every flag and argument:
// Go's (90s, 30m, 1h30m) with a leading count of days (1d, 3d, 1d12h).
func ParseDuration(s string) (time.Duration, error) {
	if days, rest, ok := strings.Cut(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 0 || strconv.Itoa(n) != days || n > 100000 {
			return 0, fmt.Errorf("invalid duration %q", s)
		}
		var more time.Duration // after the days (1d12h)
		if rest != "" {
			more, err = time.ParseDuration(rest)
		}
		if err != nil || more < 0 {
			return 0, fmt.Errorf("invalid duration %q", s)
		}
		return time.Duration(n)*24*time.Hour + more, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, err
	}
	if d < 0 {
		return 0, fmt.Errorf("negative duration %s", s)
	}
	return d, nil
}

// ParseSince reads a lower bound in time: a duration back from now ("2h",
// "3d") or a time (RFC 3339, or a date YYYY-MM-DD in UTC).
func ParseSince(now time.Time, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := ParseDuration(s); err == nil {
		return now.Add(-d), nil
	}
	return parseDate(s)
}

// parseDate reads a time as RFC 3339 or a date (midnight UTC).
func parseDate(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%q is neither a duration (2h, 3d) nor a time (2026-11-01 or 2026-11-01T12:00:00Z)", s)
}

// defaultTTL is how long a reservation lasts when the request says not.
const defaultTTL = "2h"

// ParseTTL reads a reservation's time to live in the one duration syntax
// and holds it to what a reservation may last; verb names the command.
func ParseTTL(verb, s string) (time.Duration, error) {
	d, err := ParseDuration(s)
	if err != nil {
		return 0, usagef(verb, "%s %q: give a duration such as 30m, 4h or 1d", wording.Param("ttl"), s)
	}
	if d < time.Second || d > reservations.MaxTTL {
		return 0, usagef(verb, "%s %s is out of range: reservations last from a second to 7d (renew to keep one longer)", wording.Param("ttl"), s)
	}
	return d, nil
}

// WaitTimeout reads the timeout of a command that waits (msg wait,
// reserve --wait), the request's parameter param: a positive duration;
// "" is no bound.
func WaitTimeout(command string, param wording.Param, s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, usagef(command, "%s %q: give a positive duration such as 30s, 10m, 1h or 1d", param, s)
	}
	return d, nil
}

// waitContext is the context a wait runs in: Env.Ctx (the MCP call's, or
// none), ended after timeout when it is positive. cancel must be called.
func (e *Env) waitContext(timeout time.Duration) (ctx context.Context, cancel context.CancelFunc) {
	ctx = cmp.Or(e.Ctx, context.Background())
	if timeout > 0 {
		return context.WithTimeout(ctx, timeout)
	}
	return ctx, func() {}
}
