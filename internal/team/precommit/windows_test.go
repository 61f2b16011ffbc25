package precommit

import (
	"reflect"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/format/schema"
)

// A large log validated a window at a time reports what validating it
// whole reports, and leaves the digest a whole digest would be, wherever
// its problems lie: in one window, across two, or between the last window
// and the first.
func TestValidatingInWindowsEqualsValidatingWhole(t *testing.T) {
	defer func(size, window int) { windowedValidation, validationWindow = size, window }(windowedValidation, validationWindow)
	windowedValidation, validationWindow = 1, 2000 // windows of a few lines
	var clean []string
	for n := range 200 {
		clean = append(clean, msg(n, 0))
	}
	f, ok := schema.DefaultRegistry().FormatFor(logPath, []byte(clean[0]))
	if !ok || !f.Incremental() {
		t.Fatalf("no incremental format for %s", logPath)
	}
	with := func(edit func([]string) []string) string {
		return lines(edit(append([]string(nil), clean...))...)
	}
	for name, log := range map[string]string{
		"clean": with(func(l []string) []string { return l }),
		"a version of the first record at the end": with(func(l []string) []string { return append(l, msg(0, 1)) }),
		"the first line repeated at the end":       with(func(l []string) []string { return append(l, l[0]) }),
		"a torn line in the middle":                with(func(l []string) []string { l[100] = `{"id":"qm-`; return l }),
		"an older version after a newer one, far apart": with(func(l []string) []string {
			l[5] = msg(5, 3)
			return append(l, msg(5, 1))
		}),
		"no final newline":           strings.TrimSuffix(with(func(l []string) []string { return l }), "\n"),
		"lines longer than a window": with(func(l []string) []string { return l }),
	} {
		t.Run(name, func(t *testing.T) {
			validationWindow = 2000
			if strings.Contains(name, "longer than a window") {
				validationWindow = 100
			}
			opts := schema.Options{Registry: schema.DefaultRegistry()}
			forgotten := 0
			got, gotDigest := validateWhole(f, logPath, []byte(log), opts, func(w []byte) { forgotten += len(w) })
			want := schema.Validate(f, logPath, []byte(log), opts)
			if cleanCase := !strings.Contains(name, "repeated") && !strings.Contains(name, "torn") && !strings.Contains(name, "older"); want.Valid() != cleanCase {
				t.Fatalf("the whole validates clean: %v, want %v (the case tests nothing)", want.Valid(), cleanCase)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("in windows:\n%+v\nwhole:\n%+v", got, want)
			}
			if !want.Valid() {
				if gotDigest != nil {
					t.Fatal("a digest of a file that is not clean")
				}
				return
			}
			if wantDigest := schema.DigestOf(f, []byte(log)); !reflect.DeepEqual(gotDigest, wantDigest) {
				t.Fatalf("the windows' digest differs from the whole's")
			}
			if forgotten != len(log) && !strings.Contains(name, "longer than a window") {
				t.Fatalf("%d of %d bytes handed to forget", forgotten, len(log))
			}
		})
	}
}
