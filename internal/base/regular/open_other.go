//go:build !unix

package regular

import "os"

// openFlags: where there are no named pipes, a plain read-only open.
const openFlags = os.O_RDONLY

// blocking has nothing to clear where the open had no O_NONBLOCK.
func blocking(*os.File) error { return nil }
