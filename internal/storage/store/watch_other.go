//go:build !linux

package store

// watchNotify has no notification mechanism here: the watcher polls.
func watchNotify(paths []string, changed func()) (func(), bool) { return nil, false }
