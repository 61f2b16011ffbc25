package merge

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

var update = flag.Bool("update", false, "rewrite the want and reports files of testdata/golden/*.txtar")

// TestGolden merges each testdata/golden/*.txtar case (files path, base,
// ours, theirs) and compares the result and the reports with the want and
// reports files; -update rewrites them. Each case also checks convergence.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			get := func(name string) []byte {
				for _, f := range ar.Files {
					if f.Name == name {
						return f.Data
					}
				}
				return nil
			}
			path := strings.TrimSpace(string(get("path")))
			var opts Options
			if f := strings.TrimSpace(string(get("format"))); f != "" {
				opts.Format = Format(f)
			}
			if n := strings.TrimSpace(string(get("interval"))); n != "" {
				json.Unmarshal([]byte(n), &opts.CheckpointInterval)
			}
			res, err := Merge(get("base"), get("ours"), get("theirs"), path, opts)
			if err != nil {
				t.Fatal(err)
			}
			swapped, _ := Merge(get("base"), get("theirs"), get("ours"), path, opts)
			if !bytes.Equal(swapped.Bytes(), res.Bytes()) {
				t.Errorf("not symmetric:\n%s\nvs\n%s", res.Bytes(), swapped.Bytes())
			}
			reports, _ := json.MarshalIndent(struct {
				Format   Format   `json:"format"`
				Conflict bool     `json:"conflict"`
				Reports  []Report `json:"reports"`
			}{res.Format, res.Conflict, res.Reports}, "", "  ")
			reports = append(reports, '\n')
			if *update {
				set := func(name string, data []byte) {
					for i := range ar.Files {
						if ar.Files[i].Name == name {
							ar.Files[i].Data = data
							return
						}
					}
					ar.Files = append(ar.Files, txtar.File{Name: name, Data: data})
				}
				set("want", res.Bytes())
				set("reports", reports)
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got, want := res.Bytes(), get("want"); !bytes.Equal(got, want) {
				t.Errorf("merged:\n%s\nwant:\n%s", got, want)
			}
			if want := get("reports"); !bytes.Equal(reports, want) {
				t.Errorf("reports:\n%s\nwant:\n%s", reports, want)
			}
		})
	}
}
