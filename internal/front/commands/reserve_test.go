package commands

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

func TestReservations(t *testing.T) {
	repo := newStoreRepo(t)
	os.MkdirAll(filepath.Join(repo, "src", "components"), 0o755)
	runScenario(t, repo, []step{
		{droid: "", args: "reserve src/**", code: ExitUsage, stderr: []string{"no droid identity"}},
		{droid: "ann", args: "reserve", code: ExitUsage, stderr: []string{"name at least one PATTERN"}},
		{droid: "ann", args: "reserve src/api/** --exclusive --issue qb-1 --reason 'refactor the API'",
			stdout: []string{`reserved src/api/\*\* \(exclusive, expires in 2h0m\) qr-\w{26}`}},
		// Flags after arguments, a directory name, and a trailing slash.
		{droid: "bob", args: "reserve src/components docs/ --ttl 30m --shared",
			stdout: []string{"src/components is a directory: reserving src/components/\\*\\*",
				`reserved src/components/\*\* \(shared, expires in 30m0s\)`, `reserved docs/\*\* \(shared`}},
		// An exclusive request that conflicts grants nothing and exits 5,
		// naming holder, pattern, issue, time left and a witness path.
		{droid: "bob", args: "reserve src/api/** --exclusive", code: ExitConflict,
			stderr: []string{"nothing was reserved", `src/api/\*\* overlaps src/api/\*\* held by ann for qb-1 \(expires in 2h0m; e.g. src/api matches both\)`, "--force", "--notify"}},
		// Exclusive is the default.
		{droid: "bob", args: "reserve src/api/x.go", code: ExitConflict, stderr: []string{"nothing was reserved"}},
		{droid: "bob", args: "reserve src/api/x.go --shared --exclusive", code: ExitUsage, stderr: []string{"contradict"}},
		// A shared request is granted, with the conflict as a warning.
		{droid: "bob", args: "reserve src/api/** --shared", stdout: []string{`reserved src/api/\*\* \(shared`},
			stderr: []string{`warning: src/api/\*\* overlaps src/api/\*\* held exclusively by ann for qb-1`}},
		{droid: "cat", args: "reserve src/api/** --exclusive --notify --reason 'hotfix'", code: ExitConflict,
			stderr: []string{"held by ann", "held by bob", "notified 2 holder"}},
		{droid: "ann", args: "msg inbox", stdout: []string{"Reservation request from cat"}},
		// A grant over others' reservations tells each holder, --notify or not.
		{droid: "cat", args: "reserve src/api/** --exclusive --force", stdout: []string{`reserved src/api/\*\* \(exclusive`, `notified ann \(qm-\w{26}\)`, `notified bob`},
			stderr: []string{"warning: .*held exclusively by ann"}},
		{droid: "ann", args: "msg inbox", stdout: []string{`\*!\s+qm-\w{26}\s+cat\s+cat reserved over your reservation \(--force\)`}},
		{droid: "ann", args: "check src/api/x.go README", code: ExitConflict,
			stdout: []string{`src/api/x.go: held exclusively by cat \(pattern src/api/\*\*, expires in 2h0m\)`, "README: free"}},
		{droid: "cat", args: "check src/api/x.go", stdout: []string{`src/api/x.go: held exclusively by ann`}, code: ExitConflict},
		{droid: "ann", args: "check /etc/passwd", code: ExitUsage, stderr: []string{"outside the repository"}},
		{droid: "ann", args: "check ../x", code: ExitUsage, stderr: []string{"outside the repository"}},
		// An empty path is no path, not the top of the repository (which
		// every reservation would hold).
		{droid: "ann", args: "check ''", code: ExitUsage, stderr: []string{`an empty path names no file: give a path in PATHs \(\. for the whole repository\)`}},
		{droid: "ann", args: "check", code: ExitUsage, stderr: []string{`name at least one path to check \(PATHs\)`}},
		{droid: "ann", args: "reservations", stdout: []string{`src/api/\*\*\s+ann\s+exclusive\s+in 2h0m\s+qb-1\s+refactor the API`,
			`src/components/\*\*\s+bob\s+shared\s+in 30m0s`}},
		{droid: "ann", args: "reservations --droid bob --path docs/a.md", stdout: []string{`docs/\*\*\s+bob`}},
		// Reserving a pattern again renews it rather than adding another.
		{droid: "bob", args: "reserve docs/ --ttl 1h --shared", stdout: []string{`reserved docs/\*\* \(shared, expires in 1h0m\)`}},
		{droid: "ann", args: "release docs/**", code: ExitFailure, stderr: []string{"nothing to release: none of ann's active reservations is docs/\\*\\*", "ann holds src/api/\\*\\*"}},
		{droid: "ann", args: "release", code: ExitUsage, stderr: []string{"or use --all"}},
		{droid: "ann", args: "release src/** --all", code: ExitUsage, stderr: []string{"give PATTERNs or --all, not both"}},
		{droid: "ann", args: "renew src/api/** --ttl 4h", stdout: []string{`renewed src/api/\*\* \(expires in 4h0m\)`}},
		{droid: "ann", args: "renew --all --ttl 200h", code: ExitUsage, stderr: []string{"--ttl 200h is out of range"}},
		{droid: "ann", args: "release src/**", stdout: []string{`released src/api/\*\*`}},
		{droid: "ann", args: "release --all", code: ExitFailure, stderr: []string{"ann holds no active reservations; nothing to release"}},
		{droid: "bob", args: "release --all", stdout: []string{"released src/components/\\*\\*", "released docs/\\*\\*", "released src/api/\\*\\*"}},
		{droid: "ann", args: "reservations --all", stdout: []string{`docs/\*\*\s+bob\s+shared\s+released`}},
		// Overlap is exact: a conflict cross-matching would miss, with its
		// witness, and no conflict where a prefix test would see one.
		{droid: "ann", args: "reserve 'web/*.ts' -x", stdout: []string{`reserved web/\*\.ts`}},
		{droid: "bob", args: "reserve 'web/a*' -x", code: ExitConflict, stderr: []string{`e\.g\. web/a\.ts matches both`}},
		{droid: "bob", args: "reserve 'web/**/*.go' -x", stdout: []string{`reserved web/\*\*/\*\.go`}},
		// A pattern that breaks a rule is a usage error naming the rule.
		{droid: "ann", args: `reserve 'src\api'`, code: ExitUsage, stderr: []string{"backslash before an ordinary character"}},
		{droid: "ann", args: "reserve '../x'", code: ExitUsage, stderr: []string{`"\.\." segment`}},
		{droid: "ann", args: "reserve 'src/{a'", code: ExitUsage, stderr: []string{"invalid glob syntax"}},
		{droid: "ann", args: "reserve --ttl 0s x", code: ExitUsage},
		{droid: "ann", args: "reserve --ttl 169h x", code: ExitUsage, stderr: []string{"--ttl 169h is out of range"}},
		// The use cases' usage errors name the flags, as an MCP tool's name
		// its arguments.
		{droid: "ann", args: "reserve x --timeout 1m", code: ExitUsage, stderr: []string{"--timeout says how long --wait waits; add --wait, or leave out --timeout"}},
		{droid: "ann", args: "reserve x --wait --force", code: ExitUsage, stderr: []string{"--wait queues for the paths and --force takes them now"}},
		{droid: "ann", args: "msg send --to bob --new --body ' '", code: ExitUsage, stderr: []string{`give a --subject \(-s\), or a body`}},
	})
	r := runIn(t, repo, map[string]string{"QUEEN_DROID": "dan"}, "reserve", "src/api/**", "-x", "--json")
	if r.Code != ExitConflict || jsonField(t, r.Stdout, "conflicts.0.held.droid") != "cat" || jsonField(t, r.Stdout, "granted") != "[]" {
		t.Fatalf("--json on conflict: %d\n%s", r.Code, r.Stdout)
	}
	r = runIn(t, repo, map[string]string{"QUEEN_DROID": "dan"}, "check", "src/api/a.go", "--json")
	if r.Code != ExitConflict || jsonField(t, r.Stdout, "paths.0.free") != "false" || jsonField(t, r.Stdout, "paths.0.held_by.0.droid") != "cat" {
		t.Fatalf("check --json: %d\n%s", r.Code, r.Stdout)
	}
}

// Another droid's reservations change only with --holder and --force; the
// change shows in reservations, conflicts and --json, and the holder is
// told.
func TestForcedChangesToReservations(t *testing.T) {
	repo := newStoreRepo(t)
	runScenario(t, repo, []step{
		{droid: "ann", args: "reserve src/** docs/**", stdout: []string{`reserved src/\*\*`, `reserved docs/\*\*`}},
		{droid: "bob", args: "release src/**", code: ExitFailure, stderr: []string{"bob holds no active reservations"}},
		{droid: "bob", args: "release src/** --holder ann", code: ExitConflict,
			stderr: []string{"these reservations belong to ann, not to bob", "--force", "ann will get a message"}},
		{droid: "bob", args: "release src/** --holder ann --force --reason 'ann is on leave'",
			stdout: []string{`released ann's src/\*\* \(forced\)`, `told ann \(qm-\w{26}\)`}},
		{droid: "ann", args: "reservations --all", stdout: []string{`src/\*\*\s+ann\s+exclusive, forced by bob\s+released by bob`}},
		{droid: "ann", args: "msg inbox", stdout: []string{`\*!\s+qm-\w{26}\s+bob\s+bob released your reservation src/\*\* \(--force\)`}},
		{droid: "bob", args: "renew docs/** --holder ann --force --ttl 4h", stdout: []string{`renewed ann's docs/\*\* \(forced; expires in 4h0m\)`, "told ann"}},
		{droid: "ann", args: "reservations", stdout: []string{`docs/\*\*\s+ann\s+exclusive, forced by bob\s+in 4h0m`}},
		{droid: "cat", args: "reserve docs/a.md --force", stdout: []string{"reserved docs/a.md", "notified ann"}},
		{droid: "cat", args: "conflicts", code: ExitConflict,
			stdout: []string{`docs/\*\*\s+ann\s+exclusive, forced by bob\s+docs/a.md/\*\*\s+cat\s+exclusive, forced\s+docs/a.md`}},
		{droid: "ann", args: "renew --all", stdout: []string{`renewed docs/\*\* \(expires in 2h0m\)`}},
		{droid: "ann", args: "reservations", stdout: []string{`docs/\*\*\s+ann\s+exclusive\s+in 2h0m`}},
		{droid: "ann", args: "release docs/** --reason 'done'", code: ExitUsage, stderr: []string{"--reason is told to the holder of a forced change"}},
		{droid: "bob", args: "release docs/** --holder -x --force", code: ExitUsage, stderr: []string{`must not start with "-"`}},
		{droid: "bob", args: "release --all --holder ann --force --reason " + strings.Repeat("x", 1001), code: ExitUsage, stderr: []string{"at most 1000"}},
	})
	r := runIn(t, repo, map[string]string{"QUEEN_DROID": "ann"}, "reservations", "--all", "--json")
	if jsonField(t, r.Stdout, "reservations.0.forced_by") != "bob" || jsonField(t, r.Stdout, "reservations.0.updated_by") != "bob" ||
		jsonField(t, r.Stdout, "reservations.0.forced") != "true" || jsonField(t, r.Stdout, "reservations.1.updated_by") != "ann" {
		t.Fatalf("reservations --json:\n%s", r.Stdout)
	}
	r = runIn(t, repo, map[string]string{"QUEEN_DROID": "cat"}, "conflicts", "--json")
	if r.Code != ExitConflict || jsonField(t, r.Stdout, "conflicts.0.forced") != "true" {
		t.Fatalf("conflicts --json: %d\n%s", r.Code, r.Stdout)
	}
}

// TestReservationsAllIsCutInATable: --all lists every reservation ever
// written, so a table shows the most recent allTableLimit unless --limit
// says otherwise; --json, a program's answer, keeps them all.
func TestReservationsAllIsCutInATable(t *testing.T) {
	repo := newStoreRepo(t)
	var log strings.Builder
	for i := range allTableLimit + 5 {
		fmt.Fprintf(&log, `{"id":"qr-%026d","created_at":"2026-11-20T10:00:00Z","updated_at":"2026-11-20T10:05:00Z","expires_at":"2026-11-20T12:00:00Z","released_at":"2026-11-20T10:05:00Z","pattern":"src/%d/**","droid":"ann","status":"released","exclusive":true}`+"\n", i, i)
	}
	testgit.Write(t, repo, ".git/queen/queen_reservations.jsonl", log.String())
	results := runScenario(t, repo, []step{
		{droid: "ann", args: "reservations", stdout: []string{"^no reservations"}},
		{droid: "ann", args: "reservations --all", stdout: []string{`src/104/\*\*`, `\.\.\. and 5 more \(--limit 0 shows all\)`}},
		{droid: "ann", args: "reservations --all --limit 0"},
		{droid: "ann", args: "reservations --all --limit 3", stdout: []string{`\.\.\. and 102 more`}},
		{droid: "ann", args: "reservations --all --json"},
	})
	if strings.Contains(results[2].Stdout, "more") || strings.Count(results[2].Stdout, "released") != allTableLimit+5 {
		t.Errorf("--all --limit 0 cut the table:\n%s", results[2].Stdout)
	}
	if got := strings.Count(results[4].Stdout, `"status": "released"`); got != allTableLimit+5 {
		t.Errorf("--all --json gave %d reservations, want %d", got, allTableLimit+5)
	}
}
