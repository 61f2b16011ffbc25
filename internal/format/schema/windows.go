package schema

import (
	"github.com/git-queen/git-queen/internal/base/mapfile"
)

// A log with nothing to validate it against (the pre-commit hook's staged
// log with no digest of HEAD's blob; doctor's live store) is validated
// whole. When it is large, that is done a window of whole lines at a
// time, each window validated as an append to the ones before it
// (ValidateAppend, against the digest they left) and then dropped
// from memory, so that the hook's RSS is a window and the digest (about
// 40 bytes a line), not the log. A window with a problem sends the file
// to the whole validation, whose report is the one to show.

// windowedValidation is the size from which a log is validated in
// windows: below it, the parallel validation of the whole is faster, and
// its memory is no concern. validationWindow is a window's size: smaller
// than the hook's checksum windows, since what a window's validation
// allocates (a hash a line) adds to its pages. Tests make both small.
var windowedValidation, validationWindow = 64 << 20, 16 << 20

// ValidateWhole validates staged, the bytes of path, as format f, and
// returns the result and, for a clean file of an incremental format, its
// digest. forget drops pages of a mapping (gitrepo.Content.Forget,
// mapfile.Forget); for bytes read into memory it must do nothing.
func ValidateWhole(f *Format, path string, staged []byte, opts Options, forget func([]byte)) (Result, *Digest) {
	if r, d, ok := validateWindows(f, path, staged, opts, forget); ok {
		return r, d
	}
	mapfile.Populate(staged) // every byte is read (a no-op for a blob read into memory)
	r := Validate(f, path, staged, opts)
	if !r.Valid() || !f.Incremental() {
		return r, nil
	}
	return r, DigestOf(f, staged)
}

// validateWindows is ValidateWhole a window at a time, for a file of an
// incremental format from windowedValidation bytes on; ok is false for
// any other file, and when a window is not clean, and the whole must be
// validated to report it (the digest is then of no use).
func validateWindows(f *Format, path string, staged []byte, opts Options, forget func([]byte)) (Result, *Digest, bool) {
	if !f.Incremental() || len(staged) < windowedValidation {
		return Result{}, nil, false
	}
	d := &Digest{Format: f.Name}
	var r Result
	ok := true
	mapfile.EachWindow(staged, validationWindow, forget, func(at int, w []byte) bool {
		var err error
		r, d, err = ValidateAppend(f, path, staged[:at+len(w)], d, opts)
		ok = err == nil && r.Valid()
		return ok
	})
	return r, d, ok
}
