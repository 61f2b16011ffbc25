package records

import (
	"slices"
	"strings"
	"testing"
)

// TestKindsKeepTheirNamesOnDisk pins the names of the table that live in
// files other programs and older clones read: the log files, the ledger's
// directories, the formats and the id prefixes. Changing one breaks every
// store and ledger written before; this test makes that a decision.
func TestKindsKeepTheirNamesOnDisk(t *testing.T) {
	type names struct{ name, file, ledgerDir, format, merge, idPrefix, seedArchive string }
	want := []names{
		{"messages", "queen_messages.jsonl", "messages", "queen-message", "queen", "qm-", "queen_messages_archive*.jsonl"},
		{"assignments", "queen_assignments.jsonl", "assignments", "queen-assignment", "queen", "qa-", ""},
		{"reservations", "queen_reservations.jsonl", "reservations", "queen-reservation", "queen", "qr-", ""},
	}
	var got []names
	for _, k := range Kinds {
		got = append(got, names{k.Name, k.File, k.LedgerDir, k.Format, k.Merge, k.IDPrefix(), k.SeedArchive})
		if !k.Legacy {
			t.Errorf("%s: older setups kept it in .beads/, so init must import it (Legacy)", k.Name)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("Kinds =\n%v\nwant\n%v", got, want)
	}
}

// TestKindsAreDistinct checks what every reader of the table relies on:
// one kind per name, file, ledger directory, format and id prefix, log
// files that end in .jsonl (the merge driver's attribute, validate and
// archives go by it), ledger directories that are one plain path
// segment, and droid fields that the kind's records have.
func TestKindsAreDistinct(t *testing.T) {
	seen := map[string]string{}
	for _, k := range Kinds {
		for _, v := range []struct{ what, value string }{
			{"name", k.Name}, {"file", k.File}, {"ledger directory", k.LedgerDir}, {"format", k.Format}, {"id prefix", k.IDPrefix()},
		} {
			if v.value == "" {
				t.Errorf("%s has no %s", k.Name, v.what)
			}
			key := v.what + " " + v.value
			if other, ok := seen[key]; ok {
				t.Errorf("%s and %s share the %s %q", other, k.Name, v.what, v.value)
			}
			seen[key] = k.Name
		}
		if !strings.HasSuffix(k.File, ".jsonl") || strings.ContainsAny(k.File, `/\`) {
			t.Errorf("%s: file %q is not a base name ending in .jsonl", k.Name, k.File)
		}
		if k.LedgerDir == "FORMAT" || strings.HasPrefix(k.LedgerDir, ".") || strings.ContainsAny(k.LedgerDir, `/\:`) {
			t.Errorf("%s: ledger directory %q is not one plain segment beside FORMAT", k.Name, k.LedgerDir)
		}
		for _, f := range k.DroidFields {
			if _, ok := k.record.byName[f]; !ok {
				t.Errorf("%s: droid field %q is not a field of its records", k.Name, f)
			}
		}
	}
}

func TestKindOf(t *testing.T) {
	for _, k := range Kinds {
		if got, ok := KindOf(k.File); !ok || got.Name != k.Name {
			t.Errorf("KindOf(%q) = %q, %v; want %q", k.File, got.Name, ok, k.Name)
		}
		if kindOf(k.File) != k.record {
			t.Errorf("CheckVersion does not judge %s by the layout of %s", k.File, k.Name)
		}
	}
	for _, name := range []string{"", "queen_messages_archive.jsonl", "queen_messages", "x/" + MessagesFile, "issues.jsonl", strings.ToUpper(MessagesFile)} {
		if k, ok := KindOf(name); ok {
			t.Errorf("KindOf(%q) = %s; want none", name, k.Name)
		}
	}
	for name, want := range map[string]*logKind{
		"queen_messages_archive.jsonl":         messageKind,
		"queen_messages_archive_2026-10.jsonl": messageKind,
		"queen_messages_archive_2026-10.json":  nil,
		"queen_assignments_archive.jsonl":      nil, // git-queen's own archives are not the seed's
		"x/queen_messages_archive.jsonl":       nil,
	} {
		if got := kindOf(name); got != want {
			t.Errorf("kindOf(%q) = %v; want %v", name, got, want)
		}
	}
}
