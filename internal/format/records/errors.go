package records

import "github.com/git-queen/git-queen/internal/base/wording"

// InvalidError is bad input from whoever called: a droid name, a subject, a
// pattern. The command line reports it as a usage error (exit 2); it is
// never a reason to doubt the store.
type InvalidError struct{ Err error }

func (e *InvalidError) Error() string { return e.Err.Error() }

// Unwrap exposes the cause.
func (e *InvalidError) Unwrap() error { return e.Err }

// Invalidf returns an InvalidError with a formatted message.
func Invalidf(format string, args ...any) error {
	return &InvalidError{wording.Errorf(format, args...)}
}
