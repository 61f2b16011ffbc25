// Package docs holds the documentation that ships inside the git-queen
// binary: the man page git-queen(1), generated from the command
// definitions by `go generate ./docs` and committed, so that the binary
// prints and installs it without linking urfave/cli's markdown-to-roff
// renderer, whose package initialisation (russross/blackfriday) cost every
// git-queen process, hooks included, about half a millisecond of its start.
package docs

import _ "embed"

//go:generate go run ./mangen -o git-queen.1

// ManPage is git-queen(1) in roff, as `git queen man` prints and installs
// it. A test fails when it no longer matches the command definitions.
//
//go:embed git-queen.1
var ManPage string
