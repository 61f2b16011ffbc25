// Package regular reads the files a repository brings (configuration,
// plans, state) only when they are regular files: a symbolic link
// committed in a file's place can lead to a device (/dev/zero, read until
// memory runs out) or to a pipe (which never ends), and any teammate can
// commit one.
package regular

import (
	"cmp"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// NotRegularError is a path that is not a regular file; Kind says what it
// is instead ("a named pipe").
type NotRegularError struct {
	Path, Kind string
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is not a regular file but %s", e.Path, e.Kind)
}

// TooLargeError is a regular file larger than its reader reads.
type TooLargeError struct {
	Path string
	Max  int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %d bytes", e.Path, e.Max)
}

// Read reads the file at path when it is a regular file of at most max
// bytes (no bound when max <= 0), as Head does. One larger than max is a
// *TooLargeError.
func Read(path string, max int64) ([]byte, error) {
	limit := max + 1 // one more byte says it is larger
	if max <= 0 {
		limit = 0
	}
	data, err := Head(path, limit)
	if err == nil && max > 0 && int64(len(data)) > max {
		return nil, &TooLargeError{Path: path, Max: max}
	}
	return data, err
}

// Head reads the first max bytes (all when max <= 0) of the file at path
// when it is a regular file (see Open).
func Head(path string, max int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if max > 0 {
		r = io.LimitReader(f, max)
	}
	return io.ReadAll(r)
}

// Open opens the file at path for reading when it is a regular file. It
// looks before it opens (opening a device may do something) and again at
// what it opened (the file may have been replaced between), which it
// opens without waiting (opening a pipe waits for a writer: openFlags),
// and hands back blocking, as os.Open would. A
// missing file is an error that is fs.ErrNotExist; one that is not regular
// a *NotRegularError.
func Open(path string) (*os.File, error) {
	if err := check(path, statBeforeOpen); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, openFlags, 0)
	if err != nil {
		return nil, err
	}
	if err := cmp.Or(check(path, func(string) (fs.FileInfo, error) { return f.Stat() }), blocking(f)); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// statBeforeOpen is Open's first look; a test puts a pipe in the file's
// place after it.
var statBeforeOpen = os.Stat

func check(path string, stat func(string) (fs.FileInfo, error)) error {
	fi, err := stat(path)
	if err == nil && !fi.Mode().IsRegular() && fi.Mode()&fs.ModeSymlink == 0 {
		return &NotRegularError{Path: path, Kind: Kind(fi.Mode())}
	}
	return err
}

// Kind names what a file that is not a regular one is.
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "something else"
}
