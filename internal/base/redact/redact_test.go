package redact

import "testing"

// The password goes, wherever it stands and whatever it holds (a raw '@'
// included); the rest of a URL, and anything that is not a scheme:// URL,
// stays as it is.
func TestPassword(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"https://user:s3cret@example.com/team.git", "https://user@example.com/team.git"},
		{"https://x-access-token:ghp_abc@github.com/org/repo.git", "https://x-access-token@github.com/org/repo.git"},
		{"http://u:p%40ss@127.0.0.1:8080/team.git", "http://u@127.0.0.1:8080/team.git"},
		{"https://ann:p@ss@word@host:8443/t.git", "https://ann@host:8443/t.git"},
		{"ssh://git:pw@example.com:2222/team.git", "ssh://git@example.com:2222/team.git"},
		{"https://:tok@example.com/x", "https://@example.com/x"},
		{"https://user@example.com/team.git", "https://user@example.com/team.git"},
		{"https://example.com/a@b:c/team.git", "https://example.com/a@b:c/team.git"},
		{"https://example.com?x=a:b@c", "https://example.com?x=a:b@c"},
		{"https://u:tok@example.com", "https://u@example.com"},
		{"git@example.com:team.git", "git@example.com:team.git"},
		{"origin", "origin"},
		{"/srv/a:b@c.git", "/srv/a:b@c.git"},
		{"1x://u:p@host/", "1x://u:p@host/"}, // not a scheme
	} {
		if got := Password(tt.in); got != tt.want {
			t.Errorf("Password(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// Userinfo leaves out the user too, as git shows a URL.
func TestUserinfo(t *testing.T) {
	for in, want := range map[string]string{
		"origin":                                "origin",
		"/srv/team.git":                         "/srv/team.git",
		"git@host:team.git":                     "git@host:team.git",
		"https://host/team.git":                 "https://host/team.git",
		"https://ann:s3cret@host/team.git":      "https://host/team.git",
		"https://ann:p@ss@word@host:8443/t.git": "https://host:8443/t.git",
		"ssh://ann@host":                        "ssh://host",
	} {
		if got := Userinfo(in); got != want {
			t.Errorf("Userinfo(%q) = %q, want %q", in, got, want)
		}
	}
}

// InText redacts every URL of a text (a command line), wherever it
// starts; the rest stays as it was.
func TestInText(t *testing.T) {
	for in, want := range map[string]string{
		"git-queen sync https://u:p@ss@host/x.git --json":  "git-queen sync https://u@host/x.git --json",
		"x --remote=https://v:w@h2/ y  z":                  "x --remote=https://v@h2/ y  z",
		"a https://u:p@h b ssh://g:q@h2:22/r c":            "a https://u@h b ssh://g@h2:22/r c",
		"no urls here: a:b@c, ://x:y@z":                    "no urls here: a:b@c, ://x:y@z",
		"https://host/a@b:c/ https://u@h/":                 "https://host/a@b:c/ https://u@h/",
		"pid 1 (git-queen sync https://t:TOKEN@example/x)": "pid 1 (git-queen sync https://t@example/x)",
	} {
		if got := InText(in); got != want {
			t.Errorf("InText(%q) = %q, want %q", in, got, want)
		}
	}
}
