package jsonl

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
		{`{"id":"x","body":"one\ntwo"}`, "qb-5", false},        // \n cannot spell an id
		{`{"id":"x","body":"a\\u"}`, "qb-5", false},            // an escaped backslash, then u
		{`{"id":"x","body":"a\\\u0071b-5"}`, "qb-5", true},     // \\ then \u
		{`{"id":"x","body":"end\\"}`, "qb-5", false},           // a backslash at the end of a value
		{`\`, "qb-5", false},                                   // and at the end of the line
		{`{"id":"x","body":"caf\u00e9"}`, "qb-5", false},       // é cannot spell a character of qb-5
		{`{"id":"x","body":"caf\u00E9 \u0062"}`, "qb-5", true}, // but \u0062 is b
		{`{"id":"x","body":"\ud83d\ude00"}`, "qb-5", true},     // a surrogate: read to be safe
		{`{"id":"x","body":"\u12"}`, "qb-5", true},             // malformed: the parser says so
		{`{"id":"x","body":"a\/b"}`, "qb-5", false},            // no slash in qb-5
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

// With Mentions, a scan in windows of any size passes over the lines that
// cannot mention the text and still numbers every entry it returns as a
// full scan does: the same entries, lines and offsets, from random logs
// with blank lines, lines that are not records, escaped spellings and an
// unterminated last line.
func TestMentionsInWindowsMatchesAFullScan(t *testing.T) {
	defer func(w int) { scanWindow = w }(scanWindow)
	for seed := range 8 {
		rng := rand.New(rand.NewPCG(uint64(seed), 5))
		var b strings.Builder
		for n := range 4000 {
			thread := []string{"qb-5", "qb-6", "qb-50", `qb\u002d5`, `a\\u`, `q\u0062-5`, `qb-5\u00e9`, `caf\u00e9`}[rng.IntN(8)]
			switch {
			case rng.IntN(60) == 0:
				b.WriteString("not a record qb-5\n")
			case rng.IntN(60) == 0:
				b.WriteString("not a record\n")
			case rng.IntN(40) == 0:
				b.WriteString("\n")
			default:
				fmt.Fprintf(&b, `{"id":"m%d","thread_id":"%s","pad":%q,"n":%d}`+"\n", rng.IntN(900), thread, strings.Repeat("x", rng.IntN(400)), n)
			}
		}
		switch seed % 4 { // an unterminated last line, selected or passed over
		case 1:
			b.WriteString(`{"id":"m1","thread_id":"qb-5","n":-1}`)
		case 3:
			b.WriteString(`{"id":"m2","thread_id":"qb-6","n":-1}`)
		}
		data := []byte(b.String())
		scanWindow = []int{os.Getpagesize(), 3 * os.Getpagesize(), 16 << 20}[seed%3]
		q := Query{Fields: []string{"thread_id"}, Static: func(f [][]byte) bool { return jsonline.StringEquals(f[0], "qb-5") }}
		want, _, _ := selectVersions(data, "log", q, false, nil)
		if len(want) == 0 {
			t.Fatalf("seed %d: nothing selected", seed)
		}
		q.Mentions = Mention("qb-5")
		for _, forget := range []func([]byte){nil, func([]byte) {}} {
			got, _, _ := selectVersions(data, "log", q, false, forget)
			if len(got) != len(want) {
				t.Fatalf("seed %d, window %d (forget %v): %d entries, want %d", seed, scanWindow, forget != nil, len(got), len(want))
			}
			for i := range want {
				if got[i].ID != want[i].ID || got[i].Line != want[i].Line || got[i].Offset != want[i].Offset || string(got[i].Raw) != string(want[i].Raw) {
					t.Fatalf("seed %d, window %d (forget %v): entry %d is %s line %d at %d, want %s line %d at %d",
						seed, scanWindow, forget != nil, i, got[i].ID, got[i].Line, got[i].Offset, want[i].ID, want[i].Line, want[i].Offset)
				}
			}
		}
	}
}
