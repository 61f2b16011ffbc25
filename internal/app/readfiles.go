package app

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"

	"github.com/git-queen/git-queen/internal/base/regular"
	"github.com/git-queen/git-queen/internal/format/pipeline"
	"github.com/git-queen/git-queen/internal/format/st"
	"github.com/git-queen/git-queen/internal/gitrepo"
)

// StViewRequest names the st stream to show: File, a path from Env.Dir,
// or "-" for Stdin.
type StViewRequest struct {
	File  string
	Stdin io.Reader
}

// StView reads and replays an st stream. The lines that are not records
// and the events that cannot apply are skipped and returned, not fatal:
// the view of everything else is still worth having. An item id the plan
// holds twice is returned with them (a *st.RepeatedError), though shown.
func StView(e *Env, r StViewRequest) (view []st.ViewItem, skipped []error, err error) {
	var data []byte
	if r.File == "-" {
		data, err = io.ReadAll(r.Stdin)
	} else {
		data, err = regular.Read(e.abs(r.File), 0)
	}
	if nr, ok := errors.AsType[*regular.NotRegularError](err); ok {
		return nil, nil, fmt.Errorf("%s is not a regular file but %s; st reads a stream only from a file (or - for standard input)", r.File, nr.Kind)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read the stream: %w", err)
	}
	recs, errs := st.Parse(data)
	state, applyErrs := st.Replay(recs)
	skipped = append(errs, applyErrs...)
	if len(recs) == 0 && len(errs) > 0 {
		return nil, skipped, fmt.Errorf("%s has no st v3 record", r.File)
	}
	if err := st.Repeated(recs, state); err != nil {
		skipped = append(skipped, err)
	}
	return st.Show(state), skipped, nil
}

// PipelineRequest names the pipeline state to read: the issue Number (-1
// for every issue) under Dir (a path from Env.Dir; "" for the top of the
// repository around it, or Env.Dir outside one).
type PipelineRequest struct {
	Dir    string
	Number int
}

// Pipeline reads jkz pipeline state (seed 001). Reading every issue, the
// files that cannot be read are skipped and returned.
func Pipeline(e *Env, r PipelineRequest) (issues []pipeline.Issue, skipped []error, err error) {
	dir := r.Dir
	switch {
	case dir == "":
		if _, dir, err = repoOrDir(e.Dir); err != nil {
			return nil, nil, err
		}
	case !filepath.IsAbs(dir):
		dir = filepath.Join(e.Dir, dir)
	}
	if r.Number < 0 {
		issues, skipped = pipeline.LoadAll(dir)
		return issues, skipped, nil
	}
	is, err := pipeline.Load(dir, r.Number)
	if err != nil {
		return nil, nil, fmt.Errorf("%w\nrun 'git queen validate %s' to see what is wrong with it", err,
			filepath.ToSlash(filepath.Join(pipeline.Dir, strconv.Itoa(r.Number)+".json")))
	}
	return []pipeline.Issue{is}, nil, nil
}

// repoOrDir is the repository around dir (nil outside one) and the
// directory its files are named from: its top, or dir itself outside a
// repository (or in a bare one).
func repoOrDir(dir string) (*gitrepo.Repo, string, error) {
	repo, err := gitrepo.Discover(dir)
	if err != nil && !errors.Is(err, gitrepo.ErrNotRepository) {
		return nil, "", err
	}
	if repo != nil && repo.TopLevel != "" {
		return repo, repo.TopLevel, nil
	}
	return repo, dir, nil
}
