//go:build unix

package schema

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A queen.toml that is a pipe (or a symbolic link to a device: /dev/zero
// read until memory ran out) is refused before it is opened: opening a
// pipe for reading waits for a writer that never comes.
func TestReadConfigFileRefusesAPipe(t *testing.T) {
	p := filepath.Join(t.TempDir(), "queen.toml")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	_, err := ReadConfigFile(p)
	if err == nil || !strings.Contains(err.Error(), "not a regular file but a named pipe") {
		t.Fatalf("err = %v", err)
	}
}

// A symbolic link to a device is followed and refused.
func TestReadConfigFileRefusesADevice(t *testing.T) {
	p := filepath.Join(t.TempDir(), "queen.toml")
	if err := symlink("/dev/zero", p); err != nil {
		t.Skip(err)
	}
	_, err := ReadConfigFile(p)
	if err == nil || !strings.Contains(err.Error(), "not a regular file but a device") {
		t.Fatalf("err = %v", err)
	}
}

func symlink(old, new string) error { return syscall.Symlink(old, new) }
