package jsonl

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/git-queen/git-queen/internal/base/jsonline"
)

func TestMention(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want bool // usable as Mentions
	}{
		{"qb-543", true},
		{"qm-01M61VARGZF65ZQ6QSPQYTBZMA", true},
		{"a/b", true}, // \/ is caught by mayMention
		{"été", true}, // \u00e9 too
		{"", false},
		{`a"b`, false},
		{`a\b`, false},
		{"a\tb", false},
	} {
		if got := Mention(tt.s) != nil; got != tt.want {
			t.Errorf("Mention(%q) usable = %v, want %v", tt.s, got, tt.want)
		}
	}
}

func TestMayMention(t *testing.T) {
	for _, tt := range []struct {
		line, text string
		want       bool
	}{
		{`{"id":"x","thread_id":"qb-5"}`, "qb-5", true},
		{`{"id":"x","thread_id":"qb-50"}`, "qb-5", true}, // a false alarm: parsed, then Static decides
		{`{"id":"x","thread_id":"qb-6"}`, "qb-5", false},
		{`{"id":"x","thread_id":"qb\u002d5"}`, "qb-5", true},
		{`{"id":"x","thread_id":"a\/b"}`, "a/b", true},
		{`{"id":"x","body":"one\ntwo"}`, "qb-5", false},    // \n cannot spell an id
		{`{"id":"x","body":"a\\u"}`, "qb-5", false},        // an escaped backslash, then u
		{`{"id":"x","body":"a\\\u0071b-5"}`, "qb-5", true}, // \\ then \u
		{`{"id":"x","body":"end\\"}`, "qb-5", false},       // a backslash at the end of a value
		{`\`, "qb-5", false},                               // and at the end of the line
	} {
		if got := mayMention([]byte(tt.line), []byte(tt.text)); got != tt.want {
			t.Errorf("mayMention(%s, %q) = %v, want %v", tt.line, tt.text, got, tt.want)
		}
	}
}

// A selection with Mentions returns what the same selection returns
// without it, whatever the spelling of the value it looks for: only lines
// it could not be in are skipped.
func TestMentionsSelectsWhatStaticSelects(t *testing.T) {
	lines := []string{
		`{"id":"m1","thread_id":"qb-5","n":1}`,
		`{"id":"m2","thread_id":"qb-6","n":1}`,
		`{"id":"m3","thread_id":"qb\u002d5","n":1}`,
		`{"id":"m4","thread_id":"qb-50","n":1}`,
		`{"id":"m5","thread_id":"qb-6","body":"see qb-5","n":1}`,
		`{"id":"m1","thread_id":"qb-5","n":2}`,
		`{"id":"m\u0036","thread_id":"qb-5","n":1}`,
		`{"id":"m7","thread_id":"qb-5","body":"a\nb","n":1}`,
	}
	path := filepath.Join(t.TempDir(), "log.jsonl")
	var data []byte
	for _, l := range lines {
		data = append(data, l+"\n"...)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	q := Query{Fields: []string{"thread_id", "n"}, Static: func(f [][]byte) bool { return jsonline.StringEquals(f[0], "qb-5") }}
	want, _, err := SelectFile(path, q)
	if err != nil {
		t.Fatal(err)
	}
	q.Mentions = Mention("qb-5")
	got, _, err := SelectFile(path, q)
	if err != nil {
		t.Fatal(err)
	}
	raws := func(es []Entry) (out []string) {
		for _, e := range es {
			out = append(out, string(e.Raw))
		}
		return out
	}
	if !slices.Equal(raws(got), raws(want)) || len(want) != 4 {
		t.Errorf("with Mentions %q\nwithout %q (want m1's second version, m3, m6 and m7)", raws(got), raws(want))
	}
}
