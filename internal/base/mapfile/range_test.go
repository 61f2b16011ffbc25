package mapfile

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestRangeReadsTheBytesAskedFor(t *testing.T) {
	page := os.Getpagesize()
	content := bytes.Repeat([]byte("0123456789abcdef"), 3*page/16+7)
	f := openWritten(t, content)
	for _, tt := range []struct{ off, size int64 }{
		{0, 10}, {5, 100}, {int64(page) - 3, 10}, {int64(page), int64(page)},
		{int64(2*page) + 1, int64(len(content) - 2*page - 1)}, {int64(len(content)), 0},
	} {
		for _, populate := range []bool{false, true} {
			data, release, err := Range(f, tt.off, tt.size, populate)
			if err != nil {
				t.Fatalf("Range(%d, %d): %v", tt.off, tt.size, err)
			}
			if want := content[tt.off : tt.off+tt.size]; !bytes.Equal(data, want) {
				t.Errorf("Range(%d, %d, %v) = %d bytes %.20q, want %.20q", tt.off, tt.size, populate, len(data), data, want)
			}
			release()
		}
	}
}

// openWritten writes content to a new file and opens it for reading; the
// test closes it.
func openWritten(t *testing.T, content []byte) *os.File {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}
