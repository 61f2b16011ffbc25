package setup

import (
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// TestLefthookSpellingAcrossFiles: lefthook merges the files it reads key
// by key, as they are spelt (koanf), then decodes each setting from the
// key spelt as its field (Skip:, exclude_tags:) wherever a file has it,
// else from the one other key there is, else from one of the others at
// random (mapstructure). So a setting spelt as its field in one file
// decides, whatever the order of the files, and a mapping it holds
// (Commands:) replaces another file's (commands:) whole; only two other
// spellings (skip:, SKIP:) are read at random. doctor warned that it could
// not tell of every setting two files spell differently. lefthook merges
// jobs by their name: key alone, and only in a list spelt jobs: (in a
// group spelt group:): a job named by Name: is another job, which doctor
// took for the one of that name, and a later file's Jobs: replaces the
// list before it, where doctor said ok. lefthook run pre-commit, a file
// staged, shows each verdict (lefthook 2.2.2).
func TestLefthookSpellingAcrossFiles(t *testing.T) {
	const (
		queen = "pre-commit:\n  commands:\n    q:\n      run: git-queen hook pre-commit\n"
		local = "pre-commit:\n  commands:\n    q:\n"
		job   = "pre-commit:\n  jobs:\n    - name: q\n      run: git-queen hook pre-commit\n"
	)
	for _, tt := range []struct {
		name        string
		main, local string // lefthook.yml, lefthook-local.yml
		says        string // the warning; "" for none
	}{
		{"skip: true, then Skip: false", queen + "      skip: true\n", local + "      Skip: false\n", ""},
		{"Skip: false, then skip: true", queen + "      Skip: false\n", local + "      skip: true\n", ""},
		{"Skip: true, then skip: false", queen + "      Skip: true\n", local + "      skip: false\n",
			"lefthook.yml sets skip: true on git-queen's command, so lefthook skips git-queen's check"},
		{"skip: false, then Skip: true", queen + "      skip: false\n", local + "      Skip: true\n",
			"lefthook-local.yml sets skip: true on git-queen's command, so lefthook skips git-queen's check"},
		{"skip: true on the hook, then Skip: false", "pre-commit:\n  skip: true\n" + queen[len("pre-commit:\n"):], "pre-commit:\n  Skip: false\n", ""},
		{"skip: true, then SKIP: false, read at random", queen + "      skip: true\n", local + "      SKIP: false\n",
			"lefthook.yml spells skip: on git-queen's command as skip:, and lefthook-local.yml as SKIP:; lefthook merges both into one mapping and reads one of them"},
		{"Run: in the local configuration", queen, local + "      Run: echo other\n",
			"lefthook-local.yml spells run: as Run: on command q of pre-commit, where lefthook.yml spells it run:"},
		{"Commands: in the local configuration", queen, "pre-commit:\n  Commands:\n    lint:\n      run: echo lint\n",
			"lefthook-local.yml spells commands: as Commands: on pre-commit, where lefthook.yml spells it commands:; lefthook reads the key spelt as its field alone"},
		{"Commands: in the main configuration, commands: in the local one", "pre-commit:\n  Commands:\n" + queen[len("pre-commit:\n  commands:\n"):],
			local + "      skip: true\n", ""},
		{"a job named by Name: in the local configuration, skipped", job, "pre-commit:\n  jobs:\n    - Name: q\n      skip: true\n", ""},
		{"a job named by Name: in the local configuration, with another run:", job, "pre-commit:\n  jobs:\n    - Name: q\n      run: echo other\n", ""},
		{"a job named by Name:, and one of its name skipped in the local configuration", strings.Replace(job, "name:", "Name:", 1),
			"pre-commit:\n  jobs:\n    - name: q\n      skip: true\n", ""},
		{"a job named by Name: in both files", strings.Replace(job, "name:", "Name:", 1), "pre-commit:\n  jobs:\n    - Name: q\n      run: echo other\n", ""},
		{"Jobs: in both files", strings.Replace(job, "jobs:", "Jobs:", 1), "pre-commit:\n  Jobs:\n    - name: lint\n      run: echo lint\n",
			"lefthook-local.yml's Jobs: on pre-commit replaces lefthook.yml's whole, since lefthook merges jobs by name only in a list spelt jobs: (in a group spelt group:)"},
		{"a group's Jobs: in both files", "pre-commit:\n  jobs:\n    - name: g\n      group:\n        Jobs:\n          - name: q\n            run: git-queen hook pre-commit\n",
			"pre-commit:\n  jobs:\n    - name: g\n      group:\n        Jobs:\n          - name: lint\n            run: echo lint\n",
			"lefthook-local.yml's Jobs: on group g of pre-commit replaces lefthook.yml's whole"},
		{"Group: in both files", "pre-commit:\n  jobs:\n    - name: g\n      Group:\n        jobs:\n          - name: q\n            run: git-queen hook pre-commit\n",
			"pre-commit:\n  jobs:\n    - name: g\n      Group:\n        jobs:\n          - name: lint\n            run: echo lint\n",
			"lefthook-local.yml's jobs: on group g of pre-commit replaces lefthook.yml's whole"},
		{"a group's jobs: in both files", "pre-commit:\n  jobs:\n    - name: g\n      group:\n        jobs:\n          - name: q\n            run: git-queen hook pre-commit\n",
			"pre-commit:\n  jobs:\n    - name: g\n      group:\n        jobs:\n          - name: lint\n            run: echo lint\n", ""},
		{"a job named by Name:, in exclude_tags", "pre-commit:\n  exclude_tags: [q]\n" + strings.Replace(job, "name:", "Name:", 1)[len("pre-commit:\n"):], "",
			"lefthook.yml sets exclude_tags: q on pre-commit, which names git-queen's command (q, its name or a tag it has)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRepo(t)
			hook(t, r, "pre-commit", "#!/bin/sh\nif [ \"$LEFTHOOK\" = \"0\" ]; then exit 0; fi\nlefthook run pre-commit \"$@\"\n")
			testgit.Write(t, r.TopLevel, "lefthook.yml", tt.main)
			if tt.local != "" {
				testgit.Write(t, r.TopLevel, "lefthook-local.yml", tt.local)
			}
			c := r.checkHook("pre-commit", Options{})
			if tt.says == "" && c.Status != OK || tt.says != "" && (c.Status != Warn || !strings.Contains(c.Message, "; but "+tt.says)) {
				t.Fatalf("want %q; check %+v", tt.says, c)
			}
		})
	}
}
