package commands

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestMessages(t *testing.T) {
	repo := newStoreRepo(t)
	long := strings.Repeat("x", 101)
	runScenario(t, repo, []step{
		{droid: "", args: "msg send --to bob --subject hi", code: ExitUsage, stderr: []string{"no droid identity", "QUEEN_DROID"}},
		{droid: "ann", args: "msg send --to bob --subject " + long, code: ExitUsage, stderr: []string{"101 characters; at most 100"}},
		{droid: "ann", args: "msg send --to bob --subject hi --importance extreme", code: ExitUsage, stderr: []string{"not one of low, normal, high, urgent"}},
		{droid: "ann", args: "msg send --to '@all' --subject hi", code: ExitFailure, stderr: []string{"reaches nobody"}},
		{droid: "ann", args: "msg send --to 'bad name' --subject hi", code: ExitUsage, stderr: []string{"recipient: droid name"}},
		{droid: "ann", args: "msg send --subject hi", code: ExitUsage, stderr: []string{`name the recipient`}},
		{droid: "ann", args: "msg send extra --to bob --subject hi", code: ExitUsage, stderr: []string{"two recipients: --to bob and extra; give one, or list them: --to bob,extra"}},
		{droid: "ann", args: "msg send --to bob --subject 'About the API'", code: ExitUsage,
			stderr: []string{`no droid "bob" has appeared in this repository`, "--new"}},
		{droid: "ann", args: "msg send --to bob --new --subject 'About the API' --body 'see <docs> & go' --issue qb-7 --importance high",
			stdout: []string{`sent qm-\w{26} to bob: About the API`}},
		{droid: "bob", args: "msg inbox", stdout: []string{`\*!\s+qm-\w+\s+ann\s+About the API\s+qb-7\s+just now`}},
		{droid: "bob", args: "msg inbox --since 1h --unread", stdout: []string{"About the API"}},
		{droid: "ann", args: "msg inbox", stdout: []string{"no messages for ann"}},
		{droid: "bob", args: "msg inbox --since yesterday", code: ExitUsage, stderr: []string{`--since: "yesterday" is neither a duration`}},
		// A wait filter no message can match is refused at once, not waited
		// out.
		{droid: "bob", args: "msg wait --from 'a b' --timeout 10m", code: ExitUsage, stderr: []string{`--from: droid name "a b" contains a space`}},
		{droid: "bob", args: "msg read ''", code: ExitUsage, stderr: []string{`give the ID of a message \(git queen msg inbox lists yours\)`}},
		{droid: "bob", args: "msg wait --reply-to 'qm-1 2' --timeout 10m", code: ExitUsage, stderr: []string{`--reply-to: "qm-1 2" is no id`}},
	})

	first := runIn(t, repo, map[string]string{"QUEEN_DROID": "bob"}, "msg", "inbox", "--json")
	id := jsonField(t, first.Stdout, "messages.0.id")
	if jsonField(t, first.Stdout, "messages.0.body") != "see <docs> & go" || jsonField(t, first.Stdout, "messages.0.thread_id") != "qb-7" {
		t.Fatalf("inbox JSON: %s", first.Stdout)
	}
	runScenario(t, repo, []step{
		// Someone else reading does not mark it read.
		{droid: "cat", args: "msg read " + id, stdout: []string{"From: ann", "To: bob", "Issue: qb-7", "Importance: high", "see <docs> & go"}},
		{droid: "bob", args: "msg inbox --unread", stdout: []string{"About the API"}},
		{droid: "bob", args: "msg read " + id, stdout: []string{"About the API"}},
		{droid: "bob", args: "msg inbox --unread", stdout: []string{"no messages for bob"}},
		{droid: "bob", args: "msg read qm-01JAAAAAAAAAAAAAAAAAAAAAAA", code: ExitFailure, stderr: []string{"no message qm-01JAAAAAAAAAAAAAAAAAAAAAAA"}},
		{droid: "bob", args: "msg reply " + id + " --body 'on it'", stdout: []string{"to ann: Re: About the API"}},
		{droid: "ann", args: "msg thread qb-7", stdout: []string{"(?s)About the API.*---.*Re: About the API.*on it"}},
		{droid: "ann", args: "msg thread " + id, stdout: []string{"(?s)About the API.*Re: About the API"}},
		{droid: "cat", args: "msg delete " + id, code: ExitFailure, stderr: []string{"only they can delete it"}},
		{droid: "bob", args: "msg delete " + id, stdout: []string{"deleted " + id}},
		{droid: "bob", args: "msg delete " + id, code: ExitFailure, stderr: []string{"already deleted"}},
		{droid: "bob", args: "msg inbox", stdout: []string{"no messages for bob"}},
		// Broadcast: everyone seen in the stores but the sender. cat has
		// only read so far, which leaves no trace.
		{droid: "ann", args: "msg send --to @all --subject 'standup in 5'", stdout: []string{`^sent qm-\w+ to bob: standup in 5\n$`}},
		{droid: "cat", args: "msg send --to ann --subject 'me too'", stdout: []string{"to ann"}},
		{droid: "ann", args: "msg send --to @all --subject 'standup now'", stdout: []string{"to bob", "to cat"}},
		{droid: "cat", args: "msg inbox", stdout: []string{"standup now"}},
		{droid: "bob", args: "msg read", code: ExitUsage, stderr: []string{"expected a message ID"}},
	})

	// The read version keeps the fields of the original, and adds read_at.
	data, err := os.ReadFile(filepath.Join(repo, ".git", "queen", "queen_messages.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var readLine string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, id) && strings.Contains(l, `"read":true`) {
			readLine = l
		}
	}
	if !strings.Contains(readLine, `"read_at":"2026-11-22T12:00:00Z"`) || !strings.Contains(readLine, `"body":"see <docs> & go"`) {
		t.Fatalf("read version: %s", readLine)
	}
}

// Recipients are checked: a comma-separated list sends one copy each, a
// name this repository has never seen is a usage error naming the near
// matches (unless --new), and nothing is sent when one name is refused.
func TestRecipientsOnTheCommandLine(t *testing.T) {
	repo := newStoreRepo(t)
	os.MkdirAll(filepath.Join(repo, ".beads"), 0o755)
	os.WriteFile(filepath.Join(repo, ".beads", "queen.toml"), []byte("[droids]\nnames = [\"dan\"]\n"), 0o644)
	runScenario(t, repo, []step{
		{droid: "ann", args: "msg send --to bob,cat --new --subject hello", stdout: []string{`(?m)^sent qm-\w+ to bob: hello$`, `(?m)^sent qm-\w+ to cat: hello$`}},
		{droid: "ann", args: "msg send --to anne --subject typo", code: ExitUsage,
			stderr: []string{`no droid "anne" has appeared in this repository \(did you mean ann\?\)`, "pass --new if the name is meant"}},
		{droid: "ann", args: "msg send --to bob,catt --subject 'one typo'", code: ExitUsage, stderr: []string{`no droid "catt".*did you mean cat\?`}},
		{droid: "bob", args: "msg inbox", stdout: []string{"hello"}},
		{droid: "cat", args: "msg inbox", stdout: []string{"hello"}},
		{droid: "ann", args: "msg send --to zed --subject far", code: ExitUsage, stderr: []string{`no droid "zed".*known droids: bob, cat, dan`}},
		{droid: "ann", args: "msg send --to dan --subject 'listed in queen.toml'", stdout: []string{"to dan"}},
		{droid: "ann", args: "msg send --to '@all' --subject everyone", stdout: []string{"to bob", "to cat", "to dan"}},
		{droid: "ann", args: "msg send bob,cat 'positional list'", stdout: []string{"to bob: positional list", "to cat: positional list"}},
		{droid: "ann", args: "msg send --to , --subject nobody", code: ExitUsage, stderr: []string{"no droid named"}},
	})
	// The refused sends wrote nothing.
	r := runIn(t, repo, map[string]string{"QUEEN_DROID": "ann"}, "msg", "sent", "--json", "-n", "0")
	if !strings.Contains(r.Stdout, `"subject": "hello"`) {
		t.Fatalf("msg sent --json does not show what was sent: %s", r.Stdout)
	}
	for _, refused := range []string{"typo", "one typo", "far", "nobody"} {
		if strings.Contains(r.Stdout, `"subject": "`+refused+`"`) {
			t.Errorf("the refused message %q was sent: %s", refused, r.Stdout)
		}
	}
}

func TestMessageBodyFromStdinAndFile(t *testing.T) {
	repo := newStoreRepo(t)
	body := filepath.Join(repo, "body.md")
	os.WriteFile(body, []byte("# Plan\n\nline two\n"), 0o644)
	runScenario(t, repo, []step{
		{droid: "ann", args: "msg send --to bob --new --subject file --body-file body.md", stdout: []string{"sent"}},
		{droid: "ann", args: "msg send --to bob --subject both --body x --body-file body.md", code: ExitUsage, stderr: []string{"not both"}},
		{droid: "ann", args: "msg send --to bob --subject missing --body-file nope.md", code: ExitFailure, stderr: []string{"read --body-file"}},
	})
	r := runIn(t, repo, map[string]string{"QUEEN_DROID": "bob"}, "msg", "inbox", "--json")
	if got := jsonField(t, r.Stdout, "messages.0.body"); got != "# Plan\n\nline two\n" {
		t.Fatalf("body from file: %q", got)
	}

	// Standard input, with --body-file - or --body -.
	for i, flag := range []string{"--body-file", "--body"} {
		var stdout, stderr strings.Builder
		want := fmt.Sprintf("from stdin %d\n", i)
		e := &Env{Stdin: strings.NewReader(want), Stdout: &stdout, Stderr: &stderr, Dir: repo,
			Getenv: func(k string) string { return map[string]string{"QUEEN_DROID": "ann"}[k] },
			Now:    func() time.Time { return time.Date(2026, 11, 22, 13, 0, i, 0, time.UTC) }}
		if code := Run(e, []string{"git-queen", "msg", "send", "--to", "bob", "--subject", "stdin", flag, "-"}); code != 0 {
			t.Fatalf("stdin body with %s: %d %s", flag, code, stderr.String())
		}
		r = runIn(t, repo, map[string]string{"QUEEN_DROID": "bob"}, "msg", "inbox", "--json")
		if got := jsonField(t, r.Stdout, "messages.0.body"); got != want {
			t.Fatalf("body from stdin with %s: %q", flag, got)
		}
	}
}
