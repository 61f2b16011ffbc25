package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// TestLefthookAgreesWithDoctor runs the real lefthook over a table of
// configurations and checks that doctor's pre-commit line agrees with
// it: never ok where lefthook does not run git-queen's check on a commit
// of a path bob holds (the check refuses it), and ok where it does,
// unless it skips the check for other commits (doctor then warns). Each row has been seen to disagree, or pins what doctor reads as
// lefthook does (anchors, merge keys, documents, BOM, CRLF, tabs, TOML,
// JSON, the local configuration, extends:).
func TestLefthookAgreesWithDoctor(t *testing.T) {
	lefthook := npmTool(t, "lefthook")
	repo, _ := hookRepo(t)
	const queen = "pre-commit:\n  commands:\n    q:\n      run: git-queen hook pre-commit\n"
	const group = "pre-commit:\n  jobs:\n    - name: g\n      group:\n        jobs:\n          - name: q\n            run: git-queen hook pre-commit\n"
	testgit.Write(t, repo, "held/a.txt", "a\n")
	testgit.Write(t, repo, "lefthook.yml", queen)
	mustSh(t, repo, lefthook+" install && git add -A && git commit -q -m held")
	if out, ok := queenInit(t, repo); !ok {
		t.Fatalf("init: %s", out)
	}
	mustSh(t, repo, "git add -A && git commit -q -m init")
	mustQueen(t, repo, "bob", "reserve", "held/**", "--exclusive")
	const change, deletion = "echo b > held/a.txt && git add held", "git rm -q held/a.txt"
	for _, tt := range []struct {
		name   string
		files  map[string]string // beside lefthook.yml: queen, unless they name it
		change string            // what is staged
		runs   bool              // lefthook runs git-queen's check
		others bool              // but skips it for other commits: doctor warns
		env    []string          // for lefthook and doctor
	}{
		{"the plain command", nil, change, true, false, nil},
		{"a BOM and CRLF line ends", map[string]string{"lefthook.yml": "\ufeff" + strings.ReplaceAll(queen, "\n", "\r\n")}, change, true, false, nil},
		{"a tab in the indentation", map[string]string{"lefthook.yml": strings.Replace(queen, "  commands", "\tcommands", 1)}, change, false, false, nil},
		{"a second document that skips it", map[string]string{"lefthook.yml": queen + "---\npre-commit:\n  skip: true\n"}, change, true, false, nil},
		{"skip: merged from an anchor", map[string]string{"lefthook.yml": "x: &x {skip: true}\n" + queen + "      <<: *x\n"}, change, false, false, nil},
		{"skip: \"\", the state outside a merge", map[string]string{"lefthook.yml": queen + "      skip: \"\"\n"}, change, false, false, nil},
		{"only: [], which never holds", map[string]string{"lefthook.yml": queen + "      only: []\n"}, change, false, false, nil},
		{"skip: yes, a string", map[string]string{"lefthook.yml": queen + "      skip: yes\n"}, change, true, false, nil},
		{"commands: with nothing after it in the local configuration", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands:\n"}, change, false, false, nil},
		{"Skip: in another case", map[string]string{"lefthook.yml": queen + "      Skip: true\n"}, change, false, false, nil},
		{"skip: true, then Skip: false", map[string]string{"lefthook.yml": queen + "      skip: true\n      Skip: false\n"}, change, true, false, nil},
		{"Skip: true, then skip: false", map[string]string{"lefthook.yml": queen + "      Skip: true\n      skip: false\n"}, change, false, false, nil},
		// lefthook merges the keys of two files into one mapping, then reads
		// the one spelt as its field (Skip:); doctor took the later file's.
		{"Skip: true, then skip: false in the local configuration", map[string]string{"lefthook.yml": queen + "      Skip: true\n",
			"lefthook-local.yml": "pre-commit:\n  commands:\n    q:\n      skip: false\n"}, change, false, false, nil},
		// A key spelt as its field decides whichever file has it; it reads at
		// random of two others alone. A job named by Name: is merged with
		// none of its name, and a list of jobs spelt Jobs: (or in a Group:)
		// is replaced by a later file's. doctor said it could not tell of
		// the first, and ok of the last.
		{"skip: true, then Skip: false in the local configuration", map[string]string{"lefthook.yml": queen + "      skip: true\n",
			"lefthook-local.yml": "pre-commit:\n  commands:\n    q:\n      Skip: false\n"}, change, true, false, nil},
		{"Skip: false, then skip: true in the local configuration", map[string]string{"lefthook.yml": queen + "      Skip: false\n",
			"lefthook-local.yml": "pre-commit:\n  commands:\n    q:\n      skip: true\n"}, change, true, false, nil},
		{"skip: true on the hook, then Skip: false in the local configuration", map[string]string{"lefthook.yml": "pre-commit:\n  skip: true\n" + queen[len("pre-commit:\n"):],
			"lefthook-local.yml": "pre-commit:\n  Skip: false\n"}, change, true, false, nil},
		{"Commands: in the local configuration", map[string]string{"lefthook-local.yml": "pre-commit:\n  Commands:\n    lint:\n      run: echo lint\n"}, change, false, false, nil},
		{"Commands: in lefthook.yml, commands: in the local configuration", map[string]string{"lefthook.yml": strings.Replace(queen, "commands", "Commands", 1),
			"lefthook-local.yml": "pre-commit:\n  commands:\n    q:\n      skip: true\n"}, change, true, false, nil},
		{"Run: in the local configuration", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands:\n    q:\n      Run: echo lint\n"}, change, false, false, nil},
		{"a job named by Name: in the local configuration", map[string]string{"lefthook.yml": strings.Replace(group, "- name: g", "- name: g\n      skip: false", 1),
			"lefthook-local.yml": "pre-commit:\n  jobs:\n    - Name: g\n      skip: true\n"}, change, true, false, nil},
		{"a job named by Name:, one of its name in the local configuration", map[string]string{"lefthook.yml": strings.Replace(group, "name: g", "Name: g", 1),
			"lefthook-local.yml": "pre-commit:\n  jobs:\n    - name: g\n      skip: true\n"}, change, true, false, nil},
		{"a job named by Name: in both files", map[string]string{"lefthook.yml": strings.Replace(group, "name: g", "Name: g", 1),
			"lefthook-local.yml": "pre-commit:\n  jobs:\n    - Name: g\n      skip: true\n"}, change, true, false, nil},
		{"Jobs: in both files", map[string]string{"lefthook.yml": strings.Replace(group, "jobs:", "Jobs:", 1),
			"lefthook-local.yml": "pre-commit:\n  Jobs:\n    - name: lint\n      run: echo lint\n"}, change, false, false, nil},
		{"Group: in both files", map[string]string{"lefthook.yml": strings.Replace(group, "group:", "Group:", 1),
			"lefthook-local.yml": "pre-commit:\n  jobs:\n    - name: g\n      Group:\n        jobs:\n          - name: lint\n            run: echo lint\n"}, change, false, false, nil},
		{"a group's jobs: in both files", map[string]string{"lefthook.yml": group,
			"lefthook-local.yml": "pre-commit:\n  jobs:\n    - name: g\n      group:\n        jobs:\n          - name: lint\n            run: echo lint\n"}, change, true, false, nil},
		{"a job named by Name:, in exclude_tags", map[string]string{"lefthook.yml": "pre-commit:\n  exclude_tags: [g]\n" +
			strings.Replace(group, "name: g", "Name: g", 1)[len("pre-commit:\n"):]}, change, false, false, nil},
		{"Commands: over commands:", map[string]string{"lefthook.yml": queen + "  Commands:\n    lint:\n      run: echo lint\n"}, change, false, false, nil},
		{"Run: over run:", map[string]string{"lefthook.yml": queen + "      Run: echo lint\n"}, change, false, false, nil},
		{"a key twice", map[string]string{"lefthook-local.yml": "pre-commit:\n  parallel: true\n  parallel: false\n"}, change, false, false, nil},
		{"a group's jobs: with nothing after it in the local configuration", map[string]string{"lefthook.yml": group,
			"lefthook-local.yml": "pre-commit:\n  jobs:\n    - name: g\n      group:\n        jobs:\n"}, change, false, false, nil},
		{"a group: with nothing after it in a file extends: names", map[string]string{"lefthook.yml": "extends: [cfg/off.yml]\n" + group,
			"cfg/off.yml": "pre-commit:\n  jobs:\n    - name: g\n      group:\n"}, change, false, false, nil},
		{"a group's jobs: [] in the local configuration", map[string]string{"lefthook.yml": group,
			"lefthook-local.yml": "pre-commit:\n  jobs:\n    - name: g\n      group:\n        jobs: []\n"}, change, true, false, nil},
		{"run: on the group's job in the local configuration", map[string]string{"lefthook.yml": group,
			"lefthook-local.yml": "pre-commit:\n  jobs:\n    - name: g\n      run: echo hi\n"}, change, false, false, nil},
		{"extends: a glob that matches a README", map[string]string{"lefthook.yml": "extends: [\"cfg/*\"]\n" + queen, "cfg/README": "x\n"}, change, false, false, nil},
		{"skip: in a file extends: names", map[string]string{"lefthook.yml": "extends: [cfg/off.yml]\n" + queen, "cfg/off.yml": "pre-commit:\n  skip: true\n"}, change, false, false, nil},
		{"TOML with a BOM", map[string]string{"lefthook.yml": "", "lefthook.toml": "\ufeff[pre-commit.commands.q]\nrun = \"git-queen hook pre-commit\"\n"}, change, false, false, nil},
		{"JSONC", map[string]string{"lefthook.yml": "", "lefthook.jsonc": "{\"pre-commit\": {\"commands\": {\"q\": {\"run\": \"git-queen hook pre-commit\"},}}} // x\n"}, change, true, false, nil},
		{"a glob: that leaves the change out", map[string]string{"lefthook.yml": queen + "      glob: \"*.go\"\n"}, change, false, false, nil},
		// {staged_files} lists no deleted file: lefthook skips the command
		// for a commit that only deletes ("no files for inspection").
		{"{staged_files}, a change", map[string]string{"lefthook.yml": strings.Replace(queen, "pre-commit\n", "pre-commit {staged_files}\n", 1)}, change, true, true, nil},
		{"{staged_files}, a deletion", map[string]string{"lefthook.yml": strings.Replace(queen, "pre-commit\n", "pre-commit {staged_files}\n", 1)}, deletion, false, false, nil},
		{"no list of files, a deletion", nil, deletion, true, false, nil},
		// LEFTHOOK_CONFIG names the main configuration. One without the
		// extension of a configuration lefthook cannot load, as a
		// directory, and fails every commit; doctor said ok of it.
		{"LEFTHOOK_CONFIG", map[string]string{"lefthook.yml": "", "cfg/q.yml": queen}, change, true, false, []string{"LEFTHOOK_CONFIG=cfg/q.yml"}},
		{"LEFTHOOK_CONFIG, without git-queen", map[string]string{"cfg/lint.yml": "pre-commit:\n  commands:\n    lint:\n      run: echo lint\n"},
			change, false, false, []string{"LEFTHOOK_CONFIG=cfg/lint.yml"}},
		{"LEFTHOOK_CONFIG, and skip: in the local configuration", map[string]string{"cfg/q.yml": queen, "lefthook-local.yml": "pre-commit:\n  commands:\n    q:\n      skip: true\n"},
			change, false, false, []string{"LEFTHOOK_CONFIG=cfg/q.yml"}},
		{"LEFTHOOK_CONFIG naming a file without an extension", map[string]string{"cfg/q": queen}, change, false, false, []string{"LEFTHOOK_CONFIG=cfg/q"}},
		{"LEFTHOOK_CONFIG naming a file with .YML", map[string]string{"cfg/q.YML": queen}, change, false, false, []string{"LEFTHOOK_CONFIG=cfg/q.YML"}},
		{"LEFTHOOK_CONFIG naming a directory", map[string]string{"cfg/q.yml": queen}, change, false, false, []string{"LEFTHOOK_CONFIG=cfg"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, name := range []string{"lefthook.yml", "lefthook-local.yml", "lefthook.toml", "lefthook.jsonc", "cfg"} {
				if err := os.RemoveAll(filepath.Join(repo, name)); err != nil {
					t.Fatal(err)
				}
			}
			testgit.Write(t, repo, "lefthook.yml", queen)
			for name, text := range tt.files {
				testgit.Write(t, repo, name, text)
			}
			if text, ok := tt.files["lefthook.yml"]; ok && text == "" {
				if err := os.Remove(filepath.Join(repo, "lefthook.yml")); err != nil {
					t.Fatal(err)
				}
			}
			mustSh(t, repo, tt.change)
			defer mustSh(t, repo, "git reset -q && git checkout -q HEAD -- held")
			out, _ := sh(t, repo, append([]string{"QUEEN_DROID=ann", "NO_COLOR=1"}, tt.env...), lefthook+" run pre-commit")
			if runs := strings.Contains(out, "reserved exclusively by bob"); runs != tt.runs {
				t.Fatalf("lefthook runs git-queen's check: %v, want %v:\n%s", runs, tt.runs, out)
			}
			doctor := queenEnv(t, repo, "ann", tt.env, "doctor").stdout
			line := regexp.MustCompile(`(?m)^(ok|warn|fail) +pre-commit .*$`).FindString(doctor)
			if strings.HasPrefix(line, "ok ") != (tt.runs && !tt.others) {
				t.Fatalf("lefthook runs git-queen's check: %v (and skips it for other commits: %v); doctor says:\n%s", tt.runs, tt.others, line)
			}
		})
	}
}
