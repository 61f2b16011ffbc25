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
// not tell of every setting two files spell differently. lefthook run
// pre-commit, a file staged, shows each verdict (lefthook 2.2.2).
func TestLefthookSpellingAcrossFiles(t *testing.T) {
	const (
		queen = "pre-commit:\n  commands:\n    q:\n      run: git-queen hook pre-commit\n"
		local = "pre-commit:\n  commands:\n    q:\n"
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
