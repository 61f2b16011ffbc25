package records

import (
	"fmt"
	"time"
)

// Relative says when t is relative to now, the way tables and messages
// put it: "in 1h12m", "3m0s ago", "just now".
func Relative(now, t time.Time) string {
	d := t.Sub(now)
	switch {
	case d > -time.Second && d < time.Second:
		return "just now"
	case d > 0:
		return "in " + ShortDuration(d)
	default:
		return ShortDuration(-d) + " ago"
	}
}

// ShortDuration prints a duration with at most two units: 2d3h, 1h12m, 45s.
func ShortDuration(d time.Duration) string {
	d = d.Round(time.Second)
	days, h := d/(24*time.Hour), d/time.Hour%24
	m, s := d/time.Minute%60, d/time.Second%60
	switch {
	case days > 0:
		return fmt.Sprintf("%dd%dh", days, h)
	case h > 0:
		return fmt.Sprintf("%dh%dm", h, m)
	case m > 0:
		return fmt.Sprintf("%dm%ds", m, s)
	default:
		return fmt.Sprintf("%ds", s)
	}
}
