package schema

import (
	"fmt"
	"io"
	"io/fs"
	"os"
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
	fi, err := os.Stat(path) // before opening: opening a pipe waits for a writer
	if err != nil {
		return nil, err
	}
	if err := configFileKind(path, fi); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := configFileKind(path, fi); err != nil { // replaced since the first look
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxConfigBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxConfigBytes {
		return nil, fmt.Errorf("%s is larger than 1 MiB; a team's configuration is a few lines: put the file right, or move it away", path)
	}
	return data, nil
}

// configFileKind refuses a queen.toml that is not a regular file.
func configFileKind(path string, fi fs.FileInfo) error {
	if fi.Mode().IsRegular() {
		return nil
	}
	kind := "something else"
	switch m := fi.Mode(); {
	case m.IsDir():
		kind = "a directory"
	case m&fs.ModeNamedPipe != 0:
		kind = "a named pipe"
	case m&fs.ModeDevice != 0:
		kind = "a device"
	case m&fs.ModeSocket != 0:
		kind = "a socket"
	}
	return fmt.Errorf("%s is not a regular file but %s; the configuration is read only from a file: put the file there, or remove what is in its place", path, kind)
}
