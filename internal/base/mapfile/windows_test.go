package mapfile

import (
	"bytes"
	"fmt"
	"testing"
)

// EachWindow covers data once, in order, each window ending at a line's
// end (but the last, at data's end), a line longer than a window whole
// in one, and hands forget every window fn read; fn stops it.
func TestEachWindow(t *testing.T) {
	long := bytes.Repeat([]byte("x"), 50)
	for _, tc := range []struct {
		name string
		data string
		size int
		want []string
	}{
		{"lines in windows", "a\nbb\nccc\ndd\n", 6, []string{"a\nbb\n", "ccc\n", "dd\n"}},
		{"a window of one line", "abc\nd\n", 2, []string{"abc\n", "d\n"}},
		{"a line longer than a window", "a\n" + string(long) + "\nb\n", 4, []string{"a\n", string(long) + "\n", "b\n"}},
		{"an unterminated last line", "a\nbcdefgh", 3, []string{"a\n", "bcdefgh"}},
		{"all in one", "a\nb\n", 100, []string{"a\nb\n"}},
		{"nothing", "", 4, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got, forgotten []string
			EachWindow([]byte(tc.data), tc.size, func(w []byte) { forgotten = append(forgotten, string(w)) }, func(at int, w []byte) bool {
				if string(w) != tc.data[at:at+len(w)] {
					t.Fatalf("window %q said to start at %d", w, at)
				}
				got = append(got, string(w))
				return true
			})
			if fmt.Sprint(got) != fmt.Sprint(tc.want) || fmt.Sprint(forgotten) != fmt.Sprint(tc.want) {
				t.Fatalf("windows %q, forgotten %q, want %q", got, forgotten, tc.want)
			}
		})
	}
	var seen int
	EachWindow([]byte("a\nb\nc\n"), 2, nil, func(int, []byte) bool { seen++; return seen < 2 })
	if seen != 2 {
		t.Fatalf("fn was called %d times after it asked to stop at the second", seen)
	}
}
