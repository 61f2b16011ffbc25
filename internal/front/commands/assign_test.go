package commands

import (
	"os"
	"path/filepath"
	"testing"
)

func TestAssignments(t *testing.T) {
	repo := newStoreRepo(t)
	runScenario(t, repo, []step{
		{droid: "ann", args: "assign qb-1 bob --reason 'you know the API'", stdout: []string{`assigned qb-1 to bob \(qa-\w{26}\)`}},
		{droid: "cat", args: "assign qb-1 cat", code: ExitConflict, stderr: []string{"qb-1 is already assigned to bob", "--force"}},
		{droid: "cat", args: "claim qb-1", code: ExitConflict, stderr: []string{"already assigned to bob"}},
		{droid: "bob", args: "claim qb-1", code: ExitFailure, stderr: []string{"already assigned to bob"}},
		{droid: "", args: "claim qb-2", code: ExitUsage, stderr: []string{"no droid identity"}},
		{droid: "cat", args: "claim qb-2", stdout: []string{"assigned qb-2 to cat"}},
		{droid: "", args: "assign qb-3 dan", stdout: []string{"assigned qb-3 to dan"}},
		{droid: "ann", args: "assignments", stdout: []string{`qb-1\s+bob\s+active\s+just now\s+ann`, `qb-2\s+cat\s+active\s+just now\s+cat`, `qb-3\s+dan\s+active\s+just now\s+human`}},
		{droid: "ann", args: "assignments --droid cat", stdout: []string{"qb-2"}},
		{droid: "cat", args: "unassign qb-1", code: ExitConflict, stderr: []string{"qb-1 belongs to bob, not to cat", "--force", "bob will get a message"}},
		{droid: "cat", args: "assign qb-1 cat --force", stdout: []string{"reassigned qb-1 from bob to cat", `told bob \(qm-\w{26}\)`}},
		{droid: "bob", args: "msg inbox", stdout: []string{`\*!\s+qm-\w{26}\s+cat\s+cat took over qb-1 \(--force\)\s+qb-1`}},
		{droid: "ann", args: "assignments --issue qb-1", stdout: []string{`qb-1\s+cat\s+active \(from bob\)`}},
		{droid: "ann", args: "assignments --issue qb-1 --all", stdout: []string{`qb-1\s+bob\s+reassigned by cat \(forced\)`, `qb-1\s+cat\s+active`}},
		{droid: "cat", args: "unassign qb-1 --done", stdout: []string{"qb-1: cat's assignment completed"}},
		{droid: "cat", args: "unassign qb-1", code: ExitFailure, stderr: []string{"qb-1 has no active assignment"}},
		{droid: "ann", args: "unassign qb-2 --force --reason 'gone quiet'", stdout: []string{"qb-2: cat's assignment released", "told cat"}},
		{droid: "", args: "unassign qb-3 --force", stdout: []string{"qb-3: dan's assignment released", "told dan"}},
		{droid: "dan", args: "msg inbox", stdout: []string{`human\s+human unassigned you from qb-3`}},
		{droid: "ann", args: "assign qb-9", code: ExitUsage, stderr: []string{"expected ISSUE DROID"}},
		{droid: "ann", args: "assign qb-9 '-x'", code: ExitUsage},
	})
	r := runIn(t, repo, nil, "assignments", "--all", "--json")
	if got := jsonField(t, r.Stdout, "assignments.3.previous_droid"); got != "bob" {
		t.Fatalf("reassignment lost previous_droid: %s", r.Stdout)
	}
}

func TestAssignChecksTheBeadsIssueFile(t *testing.T) {
	repo := newStoreRepo(t)
	runScenario(t, repo, []step{{droid: "ann", args: "claim anything-goes", stdout: []string{"assigned"}}})
	issues := `{"id":"qb-1","title":"Fix it","status":"open","priority":1,"issue_type":"bug"}` + "\n"
	for _, name := range []string{"beads.jsonl", "issues.jsonl"} {
		os.WriteFile(filepath.Join(repo, ".beads", name), []byte(issues), 0o644)
		runScenario(t, repo, []step{
			{droid: "ann", args: "claim qb-404", code: ExitFailure, stderr: []string{"issue qb-404 is not in .*" + name}},
			{droid: "ann", args: "claim qb-1 --force", stdout: []string{"qb-1"}},
			{droid: "ann", args: "unassign qb-1", stdout: []string{"released"}},
		})
	}
}
