package commands

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCodexShellApplyPatchRuns counts the runs of apply_patch in a Codex
// Bash call against the patches it carries: a readable patch, then a run
// the guard cannot read (one of many shapes), is refused; a script whose
// every run is on a patch it carries, or that only names apply_patch, is
// read.
func TestCodexShellApplyPatchRuns(t *testing.T) {
	const patch = "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: docs/new.md\n+hi\n*** End Patch\nEOF\n"
	unread := map[string]string{
		"nice":                  "nice -n 5 apply_patch < /tmp/evil.patch",
		"sudo":                  "sudo -u x apply_patch < /tmp/evil.patch",
		"backticks":             "`apply_patch < /tmp/evil.patch`",
		"substitution":          "echo $(apply_patch < /tmp/evil.patch)",
		"quoted substitution":   `echo "done: $(apply_patch < /tmp/evil.patch)"`,
		"env":                   "env X=1 apply_patch < /tmp/evil.patch",
		"command":               "command apply_patch < /tmp/evil.patch",
		"exec":                  "exec apply_patch < /tmp/evil.patch",
		"nohup":                 "nohup apply_patch < /tmp/evil.patch",
		"time":                  "time apply_patch < /tmp/evil.patch",
		"stdbuf":                "stdbuf -o0 apply_patch < /tmp/evil.patch",
		"xargs":                 "xargs -a /tmp/evil.patch -0 apply_patch",
		"find exec":             `find /tmp -name evil.patch -exec apply_patch {} \;`,
		"after assignment":      "a=1; apply_patch < /tmp/evil.patch",
		"no blanks":             "true;apply_patch</tmp/evil.patch",
		"continued line":        "nice -n 5 \\\n  apply_patch < /tmp/evil.patch",
		"continued word":        "apply\\\n_patch < /tmp/evil.patch",
		"by path":               "/usr/local/bin/apply_patch < /tmp/evil.patch",
		"relative path":         "./apply_patch < /tmp/evil.patch",
		"after a quoted hash":   `echo "#"; apply_patch < /tmp/evil.patch`,
		"shell heredoc":         "bash <<'SH'\napply_patch < /tmp/evil.patch\nSH",
		"heredoc substitution":  "cat <<MSG\n$(apply_patch < /tmp/evil.patch)\nMSG",
		"nested after wrapper":  "sudo sh -c 'true; apply_patch < /tmp/evil.patch'",
		"eval":                  `eval "apply_patch < /tmp/evil.patch"`,
		"ansi-c quoted name":    "$'apply_patch' < /tmp/evil.patch",
		"after a heredoc quote": "cat > notes.md <<'MD'\nit's done\nMD\napply_patch < /tmp/evil.patch",
		"piped to a shell":      "echo 'apply_patch < /tmp/evil.patch' | sh",
		"heredoc piped to bash": "cat <<'SH' | bash\napply_patch < /tmp/evil.patch\nSH",
		"script from heredoc":   "bash -c \"$(cat <<'SH'\napply_patch < /tmp/evil.patch\nSH\n)\"",
		"nested past the bound": strings.Repeat("$(", maxNesting+1) + "true" + strings.Repeat(")", maxNesting+1),
		"eval nested past it":   "true; eval '" + strings.Repeat("$(", maxNesting+1) + "true" + strings.Repeat(")", maxNesting+1) + "'",
	}
	for name, run := range unread {
		t.Run("refused/"+name, func(t *testing.T) {
			for _, script := range []string{patch + run, run} { // after a readable patch, and alone
				got, err := codexShellApplyPatch(shellCall(script))
				if err == nil || !strings.Contains(err.Error(), "runs apply_patch on a patch it does not carry") {
					t.Errorf("%q: %q, %v; want it refused as a run on a patch the guard cannot read", script, got, err)
				}
			}
		})
	}
	read := map[string]struct{ script, paths string }{
		"cd then heredoc":       {"cd web && apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: a.go\n*** End Patch\nEOF", "web/a.go"},
		"tab-stripped heredoc":  {"apply_patch <<-'EOF'\n\t*** Begin Patch\n\t*** Delete File: a.go\n\t*** End Patch\n\tEOF", "a.go"},
		"double-quoted word":    {"apply_patch <<\"EOF\"\n*** Begin Patch\n*** Delete File: a.go\n*** End Patch\nEOF", "a.go"},
		"crlf":                  {"apply_patch <<'EOF'\r\n*** Begin Patch\r\n*** Delete File: a.go\r\n*** End Patch\r\nEOF\r\n", "a.go"},
		"then git diff":         {patch + "git diff --stat", "docs/new.md"},
		"name in patch text":    {"apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: a.sh\n+apply_patch < /tmp/p\n+nice apply_patch\n*** End Patch\nEOF", "a.sh"},
		"name in echo string":   {patch + `echo "now; apply_patch < f" 'and apply_patch'`, "docs/new.md"},
		"name in comment":       {patch + "# then apply_patch < /tmp/p; `apply_patch`\ngit status # apply_patch", "docs/new.md"},
		"wrapped carried patch": {"nice -n 5 apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: a.go\n*** End Patch\nEOF", "a.go"},
		"piped carried patch":   {"cat <<'EOF' | apply_patch\n*** Begin Patch\n*** Delete File: a.go\n*** End Patch\nEOF", "a.go"},
		"mentions":              {"which apply_patch; command -v apply_patch && grep -rn apply_patch docs/ | head", ""},
		"quoted heredoc prose":  {patch + "cat > notes.md <<'MD'\nUse apply_patch < f, or nice apply_patch.\nMD", "docs/new.md"},
		"commit message":        {patch + `git commit -m "apply_patch: docs" -m "run apply_patch"`, "docs/new.md"},
		"echo continued":        {"echo see \\\napply_patch < f", ""},
		"nested substitutions":  {patch + `echo "$(basename $(dirname $(pwd)))"`, "docs/new.md"},
	}
	for name, tt := range read {
		t.Run("read/"+name, func(t *testing.T) {
			got, err := codexShellApplyPatch(shellCall(tt.script))
			if err != nil || strings.Join(got, " ") != tt.paths {
				t.Errorf("%q: %q, %v; want %q", tt.script, got, err, tt.paths)
			}
		})
	}
}

func shellCall(script string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"command": script})
	return b
}
