package app

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/testgit"
)

// Two st streams that both number their items from st-001 hold two pieces
// of work under one id, and an assignment names an id: claiming one took
// both, and the other vanished from everyone's ready list without a word.
// ready says so, naming both files, and --claim passes such an id by. A
// stream that names an item after the beads issue it tracks (same id,
// same title) holds one piece of work, and is claimed as it was.
func TestReadyPassesByAnIdTwoStreamsHold(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	item := `{"id":"%s","step":"%s","status":"pending","deps":[]}`
	for name, items := range map[string][]string{"x.jsonl": {"st-001", "x one"}, "y.jsonl": {"st-001", "y one", "st-002", "y two"}} {
		var list []string
		for i := 0; i < len(items); i += 2 {
			list = append(list, strings.Replace(strings.Replace(item, "%s", items[i], 1), "%s", items[i+1], 1))
		}
		line := `{"v":3,"ts":"2026-02-09T20:00:00Z","seq":0,"lane":"event","op":"replace","items":[` + strings.Join(list, ",") + "]}\n"
		if err := os.WriteFile(filepath.Join(repo, name), []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e := &Env{Dir: repo, Getenv: func(string) string { return "" }, Now: time.Now, Warn: io.Discard, Droid: "ann"}
	res, err := Ready.Run(e, ReadyRequest{Streams: []string{"x.jsonl", "y.jsonl"}, Claim: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Claimed == nil || res.Claimed.Assigned.IssueID != "st-002" {
		t.Errorf("ready --claim took %+v; want st-002, the first id one stream alone holds", res.Claimed)
	}
	said := false
	for _, p := range res.Problems {
		said = said || p.File == "y.jsonl" && strings.Contains(p.Msg, `"st-001"`) && strings.Contains(p.Msg, "x.jsonl")
	}
	if !said {
		t.Errorf("problems %+v; want one naming st-001 in y.jsonl and x.jsonl", res.Problems)
	}
	res, err = Ready.Run(e, ReadyRequest{Streams: []string{"x.jsonl", "y.jsonl"}})
	if err != nil || len(res.Ready) != 2 || res.Ready[0].ID != "st-001" || res.Ready[1].ID != "st-001" {
		t.Errorf("ready after the claim: %+v %v; want both st-001", res.Ready, err)
	}
	os.MkdirAll(filepath.Join(repo, ".beads"), 0o755)
	issue := `{"id":"st-001","title":"x one","status":"open","priority":0,"issue_type":"task","created_at":"2026-11-01T00:00:00Z"}` + "\n"
	if err := os.WriteFile(filepath.Join(repo, ".beads", "issues.jsonl"), []byte(issue), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err = Ready.Run(e, ReadyRequest{Streams: []string{"x.jsonl"}, Claim: true})
	if err != nil || res.Claimed == nil || res.Claimed.Assigned.IssueID != "st-001" || len(res.Problems) > 0 {
		t.Errorf("ready --claim of an issue a stream tracks by its id and title: %+v %+v %v", res.Claimed, res.Problems, err)
	}
}
