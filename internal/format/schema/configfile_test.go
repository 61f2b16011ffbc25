package schema

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ReadConfigFile reads a queen.toml only when it is a regular file of a
// configuration's size: the file comes with the repository, from any
// teammate, and every command that reads it (the pre-commit hook among
// them) would otherwise read whatever it is, whole.
func TestReadConfigFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	small := []byte("[roster]\nsilent_after = \"2h\"\n")
	atBound := bytes.Repeat([]byte("#"), MaxConfigBytes)
	os.Mkdir(filepath.Join(dir, "adir"), 0o755)
	tests := []struct {
		name, path string
		want       []byte
		notExist   bool
		errHas     string
	}{
		{name: "missing", path: filepath.Join(dir, "none.toml"), notExist: true},
		{name: "a configuration", path: write("small.toml", small), want: small},
		{name: "empty", path: write("empty.toml", nil), want: []byte{}},
		{name: "at the bound", path: write("bound.toml", atBound), want: atBound},
		{name: "past the bound", path: write("huge.toml", append(atBound, '\n')), errHas: "larger than 1 MiB"},
		{name: "a directory", path: filepath.Join(dir, "adir"), errHas: "not a regular file but a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadConfigFile(tt.path)
			switch {
			case tt.notExist:
				if !errors.Is(err, fs.ErrNotExist) {
					t.Fatalf("err = %v, want one that is fs.ErrNotExist", err)
				}
			case tt.errHas != "":
				if err == nil || !strings.Contains(err.Error(), tt.errHas) || !strings.Contains(err.Error(), tt.path) {
					t.Fatalf("err = %v, want one naming %s and saying %q", err, tt.path, tt.errHas)
				}
			case err != nil:
				t.Fatal(err)
			case !bytes.Equal(got, tt.want):
				t.Fatalf("read %d bytes, want %d", len(got), len(tt.want))
			}
		})
	}
}
