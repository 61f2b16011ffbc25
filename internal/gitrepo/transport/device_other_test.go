//go:build !unix

package transport

import "os"

// sameDevice says whether two files are on one file system: here it
// cannot tell, and says they are.
func sameDevice(a, b os.FileInfo) bool { return true }
