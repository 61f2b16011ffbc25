package schema

import (
	"errors"
	"fmt"

	"github.com/git-queen/git-queen/internal/base/regular"
)

// MaxConfigBytes bounds a queen.toml: a team's configuration is a few
// lines, and the file comes with the repository, from any teammate, to
// every command that reads it (the pre-commit hook reads it for every
// commit). A megabyte is thousands of [[format]] rules.
const MaxConfigBytes = 1 << 20

// ReadConfigFile reads the queen.toml at path, which every reader of it
// reads through: a missing file is an error that is fs.ErrNotExist (the
// defaults); one that is not a regular file (a symbolic link committed
// in its place can lead to /dev/zero, read until memory runs out, or to
// a pipe, which never ends) or is larger than MaxConfigBytes is refused
// with an error that names it and says what to do, unread.
func ReadConfigFile(path string) ([]byte, error) {
	data, err := regular.Read(path, MaxConfigBytes)
	if nr, ok := errors.AsType[*regular.NotRegularError](err); ok {
		return nil, fmt.Errorf("%v; the configuration is read only from a file: put the file there, or remove what is in its place", nr)
	}
	if _, ok := errors.AsType[*regular.TooLargeError](err); ok {
		return nil, fmt.Errorf("%s is larger than 1 MiB; a team's configuration is a few lines: put the file right, or move it away", path)
	}
	return data, err
}
