package schema

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// validLines are the lines of a format's valid fixture.
func validLines(t *testing.T, f *Format) []string {
	t.Helper()
	a, err := txtar.ParseFile(filepath.Join("testdata", "conformance", f.Name+".txtar"))
	if err != nil {
		t.Skipf("no fixture: %v", err)
	}
	for _, file := range a.Files {
		if strings.HasPrefix(file.Name, "valid/") && strings.HasSuffix(file.Name, ".jsonl") {
			return strings.Split(strings.TrimSuffix(string(file.Data), "\n"), "\n")
		}
	}
	t.Skip("no valid JSONL fixture")
	return nil
}

// Validating the appended lines against a digest of the clean lines before
// them reports exactly what validating the whole file reports, and leaves
// the digest a whole digest would be.
func TestValidateAppendEqualsValidate(t *testing.T) {
	for _, f := range formats {
		if !f.Incremental() {
			continue
		}
		t.Run(f.Name, func(t *testing.T) {
			lines := validLines(t, f)
			if len(lines) < 2 {
				t.Skip("too few valid lines to split")
			}
			k := len(lines) / 2
			prefix := strings.Join(lines[:k], "\n") + "\n"
			if r := Validate(f, "x.jsonl", []byte(prefix), Options{}); !r.Valid() {
				t.Fatalf("the valid fixture's first lines are not valid: %+v", r.Problems)
			}
			rest := strings.Join(lines[k:], "\n") + "\n"
			respelt := strings.Replace(lines[0], "{", "{ ", 1) // the same record, other bytes
			tails := map[string]string{
				"valid lines":              rest,
				"a prefix line repeated":   lines[0] + "\n",
				"a line repeated in tail":  rest + lines[k] + "\n",
				"a prefix record respelt":  respelt + "\n",
				"respelt twice":            respelt + "\n" + rest + respelt + "\n",
				"not json":                 "not json\n" + rest,
				"conflict markers":         "<<<<<<< ours\n" + rest + "=======\n>>>>>>> theirs\n",
				"blank lines and CRLF":     "\n  \n" + lines[k] + "\r\n",
				"no final newline":         rest + lines[0],
				"nothing":                  "",
				"the prefix's first again": strings.Join(lines[:k], "\n") + "\n",
			}
			for name, tail := range tails {
				data := []byte(prefix + tail)
				want := Validate(f, "x.jsonl", data, Options{Limit: 1000})
				got, next, err := ValidateAppend(f, "x.jsonl", data, DigestOf(f, []byte(prefix)), Options{Limit: 1000})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s:\nappend %s\nwhole  %s", name, describeResult(got), describeResult(want))
				}
				if whole := DigestOf(f, data); !reflect.DeepEqual(next, whole) {
					t.Errorf("%s: the digest after the append differs from the whole file's", name)
				}
			}
		})
	}
}

func describeResult(r Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "records %d omitted %d:", r.Records, r.Omitted)
	for _, p := range r.Problems {
		fmt.Fprintf(&b, "\n  %d %s %s %s", p.Line, p.Field, p.Rule, p.Message)
	}
	return b.String()
}

// A digest survives its encoding, and damaged bytes are refused.
func TestDigestEncoding(t *testing.T) {
	f, _ := Lookup("queen-message")
	data := []byte(messageLine(1, "a") + "\n" + messageLine(2, "b") + "\n")
	d := DigestOf(f, data)
	b, err := d.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var back Digest
	if err := back.UnmarshalBinary(b); err != nil || !reflect.DeepEqual(&back, d) {
		t.Fatalf("round trip: %v\n%+v\n%+v", err, back, d)
	}
	for _, bad := range [][]byte{b[:len(b)-1], append(b, 0), []byte("{}\n"), nil} {
		if (&Digest{}).UnmarshalBinary(bad) == nil {
			t.Errorf("a damaged digest (%d bytes) was accepted", len(bad))
		}
	}
}

// Two ids whose key hashes collide (lineSum is two CRCs, so a collision
// is a few lines of linear algebra: these were made by flipping bits of
// the second) are still told apart: a stale version appended after a
// newer committed one is found, as the whole file's validation finds it.
func TestVersionOrderAcrossKeyHashCollision(t *testing.T) {
	a, b := "qm-00000000000000000000000000", "qm-42333230221625300732200000"
	if lineSum([]byte(a)) != lineSum([]byte(b)) {
		t.Fatal("the ids no longer collide; the test no longer tests a collision")
	}
	f, _ := Lookup("queen-message")
	msg := func(id, updated string) string {
		return `{"id":"` + id + `","created_at":"2026-02-09T20:00:00Z","updated_at":"` + updated +
			`","from":"alice","to":"bob","subject":"s","body":"` + updated + `","importance":"low","read":false}` + "\n"
	}
	prefix := msg(a, "2026-02-09T21:00:00Z")
	data := []byte(prefix + msg(a, "2026-02-09T20:30:00Z") + msg(b, "2026-02-09T20:30:00Z"))
	want := Validate(f, "x.jsonl", data, Options{Limit: 1000})
	if len(want.Problems) != 1 || want.Problems[0].Rule != RuleVersionOrder {
		t.Fatalf("the whole file: %s; want the stale version of %s", describeResult(want), a)
	}
	got, _, err := ValidateAppend(f, "x.jsonl", data, DigestOf(f, []byte(prefix)), Options{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("append %s\nwhole  %s", describeResult(got), describeResult(want))
	}
}
