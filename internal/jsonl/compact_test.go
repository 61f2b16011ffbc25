package jsonl

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/jsonline"
)

// compactInMemory is what compaction wrote before it streamed: the log
// materialised whole, and the current version of each record plus every
// line that is not a record, in place. The streaming compaction must
// write the same bytes.
func compactInMemory(data []byte, v *jsonline.Versions) ([]byte, []int64, []int64) {
	state := Materialize(data, "log", "", v)
	keep := map[int]bool{}
	for _, r := range state.Records {
		keep[r.Line] = true
	}
	for _, p := range state.Problems {
		keep[p.Line] = true
	}
	var marks []int64
	for off := 0; off < len(data); {
		marks = append(marks, int64(off))
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
	}
	out, _, moved := selectLines(data, keep, marks)
	return out, marks, moved
}

func TestStreamingCompactionWritesWhatTheInMemoryOneDid(t *testing.T) {
	huge := `{"id":"h","at":"2026-11-01T00:00:00Z","blob":"` + strings.Repeat("x", 9<<20) + `"}`
	cases := map[string]string{
		"plain":            "{\"id\":\"a\",\"v\":1}\n{\"id\":\"b\",\"v\":1}\n{\"id\":\"a\",\"v\":2}\n",
		"crlf and bom":     "\xef\xbb\xbf{\"id\":\"a\",\"v\":1}\r\n{\"id\":\"a\",\"v\":2}\r\n{\"id\":\"b\"}\r\n",
		"bad lines kept":   "{\"id\":\"a\"}\nnot json\n<<<<<<< ours\n{\"no_id\":1}\n{\"id\":\"\"}\n{\"id\":\"a\",\"v\":2}\n=======\n",
		"blank lines":      "\n{\"id\":\"a\"}\n   \n{\"id\":\"a\",\"v\":2}\n\n",
		"current not last": "{\"id\":\"a\",\"at\":\"2026-11-02T00:00:00Z\"}\n{\"id\":\"a\",\"at\":\"2026-11-01T00:00:00Z\"}\n",
		"equal times":      "{\"id\":\"a\",\"at\":\"2026-11-01T00:00:00Z\",\"v\":\"b\"}\n{\"id\":\"a\",\"at\":\"2026-11-01T00:00:00Z\",\"v\":\"a\"}\n{\"id\":\"a\",\"at\":\"2026-11-01T00:00:00Z\",\"v\":\"c\"}\n",
		"no version time":  "{\"id\":\"a\"}\n{\"id\":\"a\",\"at\":\"2026-11-01T00:00:00Z\"}\n{\"id\":\"a\"}\n",
		"huge line":        huge + "\n{\"id\":\"h\",\"at\":\"2026-10-01T00:00:00Z\"}\n" + huge + "\n",
		"nothing to drop":  "{\"id\":\"a\"}\n{\"id\":\"b\"}\n",
	}
	var many strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&many, "{\"id\":\"r%d\",\"at\":\"2026-11-01T%02d:%02d:00Z\",\"n\":%d}\n", i%3000, i%24, i%60, i)
	}
	cases["many versions"] = many.String()
	for name, content := range cases {
		for _, v := range []*jsonline.Versions{nil, testVersions} {
			t.Run(fmt.Sprintf("%s/versions=%v", name, v != nil), func(t *testing.T) {
				want, marks, wantMoved := compactInMemory([]byte(content), v)
				dir := t.TempDir()
				l := &Log{Path: filepath.Join(dir, "log.jsonl"), Lock: &Lock{Path: filepath.Join(dir, "lock")}, Versions: v, NoSync: true}
				if err := os.WriteFile(l.Path, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
				var moved []int64
				err := l.Lock.Do(func(tx *Tx) error {
					var err error
					_, moved, err = tx.Compact(l, marks)
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				got, _ := os.ReadFile(l.Path)
				if bytes.Count(want, []byte{'\n'}) == nonBlankLines(content) {
					if string(got) != content {
						t.Fatalf("nothing was superseded, and the file changed:\n%.300q", got)
					}
					return // left alone, as before
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("streaming compaction wrote\n%.300q\nthe in-memory one\n%.300q", got, want)
				}
				if fmt.Sprint(moved) != fmt.Sprint(wantMoved) {
					t.Fatalf("marks moved to %v, want %v", moved, wantMoved)
				}
			})
		}
	}
}

func nonBlankLines(content string) int {
	n := 0
	for l := range jsonline.Lines([]byte(content)) {
		if !l.Blank() {
			n++
		}
	}
	return n
}
