// Package schema knows every file format of the seeds and says what is wrong
// with a file before it is committed: `git queen validate` and the pre-commit
// hook both call ValidateFile, so a broken record is caught with the same
// message wherever it is checked.
//
// The contract other tools can use is a set of JSON Schema (2020-12) files,
// one per record type, embedded here and printable with `git queen schema
// show`. What JSON Schema cannot say (stream rules, cycles, the st replay
// contract, a key that must match the file name) is checked in Go beside
// them. The QueenBee stores, the formats that grow large, have hand-written
// Go validators that give the same answers as their schemas at many times
// the speed; one conformance suite runs every fixture through both and
// checks that they agree.
package schema

import (
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strings"
)

//go:embed schemas/*.schema.json
var schemaFS embed.FS

// baseURL is the $id prefix of every embedded schema; schemas refer to each
// other relative to it.
const baseURL = "https://github.com/git-queen/git-queen/schema/"

const suffix = ".schema.json"

// Names lists the embedded schemas, sorted.
func Names() []string {
	entries, _ := fs.ReadDir(schemaFS, "schemas")
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), suffix))
	}
	slices.Sort(names)
	return names
}

// Source returns the JSON text of the named schema, as published.
func Source(name string) ([]byte, error) {
	b, err := schemaFS.ReadFile("schemas/" + name + suffix)
	if err != nil {
		return nil, fmt.Errorf("no schema named %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	return b, nil
}

// Title is the schema's one-line title, for listings.
func Title(name string) string {
	b, err := Source(name)
	if err != nil {
		return ""
	}
	doc, err := decodeJSON(b)
	if err != nil {
		return ""
	}
	m, _ := doc.(map[string]any)
	t, _ := m["title"].(string)
	return t
}
