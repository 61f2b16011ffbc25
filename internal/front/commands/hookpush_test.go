package commands

import "testing"

// A remote in the pre-push hook's message never shows the password a URL
// may carry, and a path in a refusal never breaks the message's lines.
func TestPrePushMessageParts(t *testing.T) {
	for in, want := range map[string]string{
		"origin":                                "origin",
		"/srv/team.git":                         "/srv/team.git",
		"git@host:team.git":                     "git@host:team.git",
		"https://host/team.git":                 "https://host/team.git",
		"https://ann:s3cret@host/team.git":      "https://host/team.git",
		"https://ann:p@ss@word@host:8443/t.git": "https://host:8443/t.git",
		"ssh://ann@host":                        "ssh://host",
	} {
		if got := anonymized(in); got != want {
			t.Errorf("anonymized(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"src/api/café.go":   "src/api/café.go",
		`src/say "hi".go`:   `src/say "hi".go`,
		"src/tab\there.go":  `"src/tab\there.go"`,
		"src/new\nline.go":  `"src/new\nline.go"`,
		"src/bell\a.go":     `"src/bell\a.go"`,
		"src/\u200bzero.go": "src/\u200bzero.go",
	} {
		if got := shownPath(in); got != want {
			t.Errorf("shownPath(%q) = %q, want %q", in, got, want)
		}
	}
}
