package ledger

import (
	"regexp"
	"testing"
)

// Every remote, however it is spelled, gets one ref component that git
// accepts, the same one each time; a plain name keeps its own.
func TestTrackingName(t *testing.T) {
	hashed := regexp.MustCompile(`^url-[0-9a-f]{16}$`)
	oneComponent := regexp.MustCompile(`^refs/queen/remotes/[A-Za-z0-9][A-Za-z0-9._-]*/ledger$`)
	tests := []struct {
		remote string
		plain  bool // the name is its own tracking name
	}{
		{"origin", true},
		{"team-b", true},
		{"team_b.2", true},
		{"Upstream", true},
		{"url-0123456789abcdef", true}, // already a tracking name
		{"url-0123456789ABCDEF", false},
		{"url-short", false},
		{"team/alpha", false},
		{"../team.git", false},
		{"/srv/git/team.git", false},
		{"file:///srv/git/team.git", false},
		{"https://example.com/team.git", false},
		{"git@example.com:team.git", false},
		{"ext::sh -c x", false},
		{".hidden", false},
		{"-x", false},
		{"a..b", false},
		{"name.lock", false},
		{"name.", false},
		{"with space", false},
		{"tab\tname", false},
		{"star*", false},
		{"", false},
		{"x" + string(make([]byte, 70)), false},
		{"a-very-long-remote-name-that-goes-on-and-on-past-sixty-four-chars-x", false},
	}
	seen := map[string]string{}
	for _, tt := range tests {
		got := TrackingName(tt.remote)
		if tt.plain && got != tt.remote || !tt.plain && !hashed.MatchString(got) {
			t.Errorf("TrackingName(%q) = %q", tt.remote, got)
		}
		if again := TrackingName(tt.remote); again != got {
			t.Errorf("TrackingName(%q) changed: %q then %q", tt.remote, got, again)
		}
		if TrackingName(got) != got {
			t.Errorf("TrackingName(%q) = %q, which maps to %q", tt.remote, got, TrackingName(got))
		}
		if other, ok := seen[got]; ok {
			t.Errorf("%q and %q share the tracking name %q", other, tt.remote, got)
		}
		seen[got] = tt.remote
		ref := TrackingRef(tt.remote)
		if !oneComponent.MatchString(ref) {
			t.Errorf("TrackingRef(%q) = %q, not refs/queen/remotes/<one component>/ledger", tt.remote, ref)
		}
		if want := "+refs/queen/ledger*:refs/queen/remotes/" + got + "/ledger*"; FetchRefspec(tt.remote) != want {
			t.Errorf("FetchRefspec(%q) = %q, want %q", tt.remote, FetchRefspec(tt.remote), want)
		}
	}
}
