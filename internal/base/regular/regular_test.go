package regular

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Read reads a regular file whole, within its bound, and refuses the
// rest, naming each.
func TestRead(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	os.WriteFile(file, []byte("0123456789"), 0o644)
	os.Mkdir(filepath.Join(dir, "d"), 0o755)
	pipe := filepath.Join(dir, "p")
	if mkfifo(pipe) != nil {
		pipe = ""
	}
	tests := []struct {
		name, path string
		max        int64
		want       []byte
		check      func(error) bool
	}{
		{"a file", file, 0, []byte("0123456789"), nil},
		{"at its bound", file, 10, []byte("0123456789"), nil},
		{"past its bound", file, 9, nil, func(err error) bool { var e *TooLargeError; return errors.As(err, &e) && e.Max == 9 }},
		{"missing", filepath.Join(dir, "none"), 0, nil, func(err error) bool { return errors.Is(err, fs.ErrNotExist) }},
		{"a directory", filepath.Join(dir, "d"), 0, nil, func(err error) bool { var e *NotRegularError; return errors.As(err, &e) && e.Kind == "a directory" }},
		{"a device", os.DevNull, 0, nil, func(err error) bool { var e *NotRegularError; return errors.As(err, &e) && e.Kind == "a device" }},
		{"a pipe", pipe, 0, nil, func(err error) bool { var e *NotRegularError; return errors.As(err, &e) && e.Kind == "a named pipe" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.path == "" || (tt.path == os.DevNull && runtime.GOOS == "windows") {
				t.Skip("not on this system")
			}
			got, err := Read(tt.path, tt.max)
			if tt.check != nil {
				if !tt.check(err) {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if err != nil || !bytes.Equal(got, tt.want) {
				t.Fatalf("got %q, %v", got, err)
			}
		})
	}
}

// A named pipe put in a file's place after Open looked was opened, and
// the open waited for a writer that never came (every reader of the log
// hung, some holding the repository's lock): it now opens at once and the
// second look refuses it.
func TestAPipeSwappedInAfterTheLookIsRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "queen_messages.jsonl")
	if err := os.WriteFile(path, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	defer func(f func(string) (fs.FileInfo, error)) { statBeforeOpen = f }(statBeforeOpen)
	statBeforeOpen = func(p string) (fs.FileInfo, error) {
		fi, err := os.Stat(p)
		if err == nil {
			os.Remove(p)
			if err := mkfifo(p); err != nil {
				t.Skip(err)
			}
		}
		return fi, err
	}
	f, err := Open(path)
	var nr *NotRegularError
	if !errors.As(err, &nr) || nr.Kind != "a named pipe" {
		t.Errorf("Open: %v, want it refused as a named pipe", err)
	}
	if f != nil {
		f.Close()
	}
}
