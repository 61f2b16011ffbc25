package commands

import "testing"

// A path in a refusal never breaks the message's lines.
func TestPrePushMessageParts(t *testing.T) {
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
