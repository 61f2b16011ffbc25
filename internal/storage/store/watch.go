package store

import (
	"os"
	"path/filepath"
	"slices"
	"time"
)

// A Watcher says when a log of the store may have changed, so that a
// command waiting for a record (msg wait) wakes when one is appended, from
// any worktree or by a sync, without reading the store in a loop. On Linux
// it uses inotify on the store's directories; elsewhere, or when inotify is
// unavailable, it polls the logs' size and modification time every
// PollInterval.
type Watcher struct {
	// C receives a value (at most one pending) after a change.
	C     chan struct{}
	stop  chan struct{}
	close func()
}

// PollInterval is how often the fallback looks at the logs: well inside
// the 100 ms in which a waiting command should wake.
const PollInterval = 50 * time.Millisecond

// Watch starts watching the log name in every source the store reads it
// from (the received copy too, even before it exists).
func (s *Store) Watch(name string) *Watcher {
	paths := []string{s.WS.Path(name)}
	if s.WS.Live {
		paths = append(paths, ReceivedPath(s.WS, name))
	}
	w := &Watcher{C: make(chan struct{}, 1), stop: make(chan struct{})}
	if closeFn, ok := watchNotify(paths, w.signal); ok {
		w.close = closeFn
		return w
	}
	go w.poll(paths)
	w.close = func() {}
	return w
}

// Close stops the watcher.
func (w *Watcher) Close() {
	close(w.stop)
	w.close()
}

func (w *Watcher) signal() {
	select {
	case w.C <- struct{}{}:
	default:
	}
}

// poll is the fallback: a change of any file's size or modification time.
func (w *Watcher) poll(paths []string) {
	type stamp struct {
		size int64
		mod  time.Time
	}
	look := func() []stamp {
		out := make([]stamp, len(paths))
		for i, p := range paths {
			if info, err := os.Stat(p); err == nil {
				out[i] = stamp{info.Size(), info.ModTime()}
			}
		}
		return out
	}
	last := look()
	t := time.NewTicker(PollInterval)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
		}
		now := look()
		if !slices.Equal(now, last) {
			w.signal()
		}
		last = now
	}
}

// dirsOf are the directories holding paths, each once.
func dirsOf(paths []string) []string {
	var dirs []string
	for _, p := range paths {
		if d := filepath.Dir(p); !slices.Contains(dirs, d) {
			dirs = append(dirs, d) // a store's logs live in two directories at most
		}
	}
	return dirs
}
