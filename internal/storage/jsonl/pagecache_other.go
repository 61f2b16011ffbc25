//go:build !linux

package jsonl

import "os"

// startWriteback does nothing where sync_file_range does not exist: the
// fsync that ends a rewrite writes the whole file.
func startWriteback(f *os.File, off, n int64) {}

// dropCached does nothing where posix_fadvise is not at hand: the old
// file's pages are freed when it is replaced.
func dropCached(f *os.File, off, n int64) {}
