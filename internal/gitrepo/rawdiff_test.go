package gitrepo

import (
	"reflect"
	"strings"
	"testing"
)

// The raw records git writes with -z are read path by path, whatever a
// path holds: a newline, a tab, a '"', a leading ':', or another pushed
// commit's id.
func TestParseDiffTree(t *testing.T) {
	a, b := strings.Repeat("a", 40), strings.Repeat("b", 40)
	zero := strings.Repeat("0", 40)
	blob := strings.Repeat("1", 40)
	rec := ":100644 100644 " + blob + " " + blob + " M"
	merged := "::100644 100644 100644 " + blob + " " + blob + " " + blob + " MM"
	tests := []struct {
		name string
		out  string
		want map[string][]string
		err  bool
	}{
		{name: "nothing", out: "", want: map[string][]string{}},
		{name: "two commits", out: a + "\x00" + rec + "\x00x.go\x00" + b + "\x00" + rec + "\x00y.go\x00" + rec + "\x00z.go\x00",
			want: map[string][]string{a: {"x.go"}, b: {"y.go", "z.go"}}},
		{name: "hard names", out: a + "\x00" + rec + "\x00new\nline.go\x00" + rec + "\x00tab\tand \"quote\".go\x00" + rec + "\x00café.go\x00",
			want: map[string][]string{a: {"new\nline.go", "tab\tand \"quote\".go", "café.go"}}},
		{name: "a path named like a commit being pushed", out: b + "\x00:000000 100644 " + zero + " " + blob + " A\x00" + a + "\x00" + a + "\x00" + rec + "\x00y.go\x00",
			want: map[string][]string{b: {a}, a: {"y.go"}}},
		{name: "a path that starts with a colon", out: a + "\x00" + rec + "\x00:weird\x00",
			want: map[string][]string{a: {":weird"}}},
		{name: "a merge's own resolution", out: a + "\x00" + merged + "\x00src/x.go\x00", want: map[string][]string{a: {"src/x.go"}}},
		{name: "a record before any commit", out: rec + "\x00x.go\x00", err: true},
		{name: "something that is neither", out: a + "\x00" + rec + "\x00x.go\x00garbage\x00", err: true},
		{name: "a short record", out: a + "\x00:100644 100644 M\x00x.go\x00", err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseDiffTree(tt.out, map[string]bool{a: true, b: true})
			if (err != nil) != tt.err {
				t.Fatalf("error %v, want one: %v", err, tt.err)
			}
			if !tt.err && !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParseDiffIndex(t *testing.T) {
	zero := strings.Repeat("0", 40)
	theirs, ours := strings.Repeat("1", 40), strings.Repeat("2", 40)
	tests := []struct {
		name string
		out  string
		want []RawEntry
		err  bool
	}{
		{name: "nothing", out: ""},
		{name: "changed, added, deleted", out: ":100644 100644 " + theirs + " " + ours + " M\x00a\nb\x00" +
			":000000 100644 " + zero + " " + ours + " A\x00new\x00" + ":160000 000000 " + theirs + " " + zero + " D\x00vendor/lib\x00",
			want: []RawEntry{{"a\nb", []string{theirs, ours}}, {"new", []string{"", ours}}, {"vendor/lib", []string{theirs, ""}}}},
		{name: "a record without its path", out: ":100644 100644 " + theirs + " " + ours + " M\x00", err: true},
		{name: "not a record", out: "x\x00y\x00", err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseDiffIndex(tt.out)
			if (err != nil) != tt.err {
				t.Fatalf("error %v, want one: %v", err, tt.err)
			}
			if !tt.err && !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
