package ledgersync

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/gitrepo/transport"
	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/testgit"
)

// ResolveRemote takes a configured name or a URL or path, and refuses
// what git would read as an option or what makes git run a program.
func TestResolveRemote(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	bare := testgit.Bare(t)
	testgit.Run(t, dir, "remote", "add", "origin", bare)
	testgit.Run(t, dir, "remote", "add", "team/alpha", bare)
	testgit.Run(t, dir, "config", "--global", "remote.elsewhere.url", bare) // a remote of the global config
	repo, err := gitrepo.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(dir, bare)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		arg        string
		configured bool
		want       string // what git is given ("" = arg)
		refused    string // in the error, when refused
	}{
		{arg: "origin", configured: true},
		{arg: "team/alpha", configured: true},
		{arg: "elsewhere", configured: true},
		{arg: rel, want: bare},
		{arg: bare},
		{arg: "file://" + bare},
		{arg: "https://example.com/team.git"},
		{arg: "http://127.0.0.1:8080/team.git"},
		{arg: "git://example.com/team.git"},
		{arg: "ssh://git@example.com:2222/team.git"},
		{arg: "git+ssh://example.com/team.git"},
		{arg: "git@example.com:team.git"},
		{arg: "example.com:team.git"},
		{arg: "[::1]:team.git"},
		{arg: "", refused: "empty"},
		{arg: "--upload-pack=touch x;:", refused: "starts with '-'"},
		{arg: "-origin", refused: "starts with '-'"},
		{arg: "ext::sh -c touch% x", refused: "makes git run the program git-remote-ext"},
		{arg: "fd::3", refused: "git-remote-fd"},
		{arg: "foo::bar", refused: "remote helper URL is accepted only as a configured remote"},
		{arg: "ssh://-oProxyCommand=x/y", refused: "host or user starts with '-'"},
		{arg: "ssh://-u@host/y", refused: "host or user starts with '-'"},
		{arg: "ssh://[-x]/y", refused: "host or user starts with '-'"},
		{arg: "git@-oProxyCommand=x:y", refused: "its host is empty or starts with '-'"},
		{arg: "-u@host:y", refused: "starts with '-'"},
		{arg: ":path", refused: "its host is empty"},
		{arg: "ftp://example.com/x", refused: "does not fetch over ftp://"},
		{arg: "https:///nohost", refused: "names no host"},
		{arg: "origin\n", refused: "control character"},
		{arg: "orig\x1bin", refused: "control character"},
		{arg: "orign", refused: "there is no remote of that name, and no repository at " + filepath.Join(dir, "orign")},
		{arg: "with space", refused: "no repository at"},
	}
	for _, tt := range tests {
		rm, err := ResolveRemote(repo, tt.arg, dir)
		if tt.refused != "" {
			var bad *RemoteArgError
			if !errors.As(err, &bad) || !strings.Contains(err.Error(), tt.refused) || !strings.Contains(err.Error(), "a remote is the name of one") {
				t.Errorf("ResolveRemote(%q) = %+v, %v; want refused: %s", tt.arg, rm, err, tt.refused)
			}
			continue
		}
		want := tt.want
		if want == "" {
			want = tt.arg
		}
		if err != nil || rm.Arg != want || rm.Configured != tt.configured || rm.Key != ledger.TrackingName(want) {
			t.Errorf("ResolveRemote(%q) = %+v, %v; want %q (configured %v)", tt.arg, rm, err, want, tt.configured)
		}
	}
}

func TestParseTimeout(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"30s", 30 * time.Second},
		{"2m", 2 * time.Minute},
		{"1m30s", 90 * time.Second},
		{"45", 45 * time.Second},
		{" 5s ", 5 * time.Second},
		{"250ms", 250 * time.Millisecond},
		{"0", 0},
		{"0s", 0},
		{"-5s", 0},
		{"-5", 0},
		{"soon", 0},
		{"", 0},
	}
	for _, tt := range tests {
		got, err := ParseTimeout(tt.in)
		if tt.want == 0 && (err == nil || !strings.Contains(err.Error(), "positive duration")) || tt.want != 0 && (err != nil || got != tt.want) {
			t.Errorf("ParseTimeout(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

// A push's rejection is named in words that say what to change.
func TestRefusalWords(t *testing.T) {
	tests := []struct {
		res  transport.PushResult
		want string
	}{
		{transport.PushResult{Refusal: transport.HiddenRef}, "receive.hideRefs"},
		{transport.PushResult{Refusal: transport.AccessRule}, "an access rule denies it (gitolite)"},
		{transport.PushResult{Refusal: transport.PreReceiveHook}, "its pre-receive hook declined it"},
		{transport.PushResult{Refusal: transport.UpdateHook}, "its update hook declined it"},
		{transport.PushResult{Reason: "shallow update not allowed"}, "it rejected it (shallow update not allowed)"},
	}
	for _, tt := range tests {
		if got := refusal(tt.res); !strings.Contains(got, tt.want) {
			t.Errorf("refusal(%+v) = %q, want %q", tt.res, got, tt.want)
		}
	}
}

// A URL given for one sync may carry a token (https://user:TOKEN@host/,
// as CI scripts give it): what names the remote leaves the password out,
// as git's own messages do, and keeps the rest.
func TestShownRemoteLeavesOutThePassword(t *testing.T) {
	tests := []struct{ arg, want string }{
		{"https://user:s3cret@example.com/team.git", "https://user@example.com/team.git"},
		{"https://x-access-token:ghp_abc@github.com/org/repo.git", "https://x-access-token@github.com/org/repo.git"},
		{"http://u:p%40ss@127.0.0.1:8080/team.git", "http://u@127.0.0.1:8080/team.git"},
		{"ssh://git:pw@example.com:2222/team.git", "ssh://git@example.com:2222/team.git"},
		{"https://:tok@example.com/x", "https://@example.com/x"},
		{"https://user@example.com/team.git", "https://user@example.com/team.git"},
		{"https://example.com/a@b:c/team.git", "https://example.com/a@b:c/team.git"},
		{"https://example.com?x=a:b@c", "https://example.com?x=a:b@c"},
		{"git@example.com:team.git", "git@example.com:team.git"},
		{"origin", "origin"},
		{"/srv/a:b@c.git", "/srv/a:b@c.git"},
	}
	for _, tt := range tests {
		if got := (Remote{Arg: tt.arg}).Shown(); got != tt.want {
			t.Errorf("Shown of %q = %q, want %q", tt.arg, got, tt.want)
		}
	}
	if err := (&RemoteArgError{Arg: "https://u:s3cret@-x/y", Reason: "r"}).Error(); strings.Contains(err, "s3cret") {
		t.Errorf("a refusal names the password: %s", err)
	}
}

// A remote that pushes to another repository than it fetches from (a
// fork) is told apart from one that pushes to the same repository by
// another transport, which is no split.
func TestPushElsewhere(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	repo, err := gitrepo.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		url, pushURL string
		split        bool
	}{
		{"https://github.com/org/repo.git", "git@github.com:org/repo.git", false},
		{"https://github.com/org/repo", "ssh://git@github.com/org/repo.git", false},
		{"https://github.com/org/repo.git", "https://ci:tok@github.com/org/repo.git/", false},
		{"/srv/team.git", "/srv/team.git", false},
		{"https://github.com/org/repo.git", "git@github.com:me/repo.git", true},
		{"/srv/team.git", "/srv/fork.git", true},
		{"https://github.com/org/repo.git", "no_push", true},
	}
	for i, tt := range tests {
		name := fmt.Sprintf("r%d", i)
		testgit.Run(t, dir, "remote", "add", name, tt.url)
		testgit.Run(t, dir, "remote", "set-url", "--push", name, tt.pushURL)
		push, _ := PushElsewhere(repo, name)
		if (push != "") != tt.split {
			t.Errorf("url %s, pushurl %s: PushElsewhere = %q; want a split: %v", tt.url, tt.pushURL, push, tt.split)
		}
	}
	testgit.Run(t, dir, "remote", "add", "plain", "/srv/team.git")
	if push, _ := PushElsewhere(repo, "plain"); push != "" {
		t.Errorf("a remote without pushurl: PushElsewhere = %q", push)
	}
}
