// Package mapfile maps files into memory read-only, because for the
// large logs and packs git-queen reads, mapping costs far less than
// reading into the heap of a short-lived process.
package mapfile
