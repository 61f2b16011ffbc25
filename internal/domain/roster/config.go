package roster

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/format/schema"
)

// DefaultSilentAfter is how long a droid may go unseen before doctor
// lists it as silent and others may steal its reservations and claims,
// unless queen.toml's [roster] silent_after says otherwise.
const DefaultSilentAfter = time.Hour

// maxSilentAfter bounds the threshold: a month.
const maxSilentAfter = 30 * 24 * time.Hour

// Config is what queen.toml says of the roster:
//
//	[roster]
//	silent_after = "2h"    # default 1h, at least MinSilence
//
//	[droids]
//	names = ["ann", "bob"] # droids expected before they write anything
type Config struct {
	Roster struct {
		SilentAfter string `toml:"silent_after"`
	} `toml:"roster"`
	Droids struct {
		Names []string `toml:"names"`
	} `toml:"droids"`
	// path is the file read, for errors; data what it held.
	path string
	data []byte
}

// ReadConfig reads the team's configuration, queen.toml (schema.ConfigFile,
// the file validate reads its rules from) in the .beads/ directory
// beadsDir; no directory or no file is the defaults.
func ReadConfig(beadsDir string) (*Config, error) {
	c := &Config{}
	if beadsDir == "" {
		return c, nil
	}
	c.path = filepath.Join(beadsDir, schema.ConfigFile)
	data, err := schema.ReadConfigFile(c.path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, err
	}
	if err := toml.Unmarshal(data, c); err != nil {
		return nil, fmt.Errorf("%s: %w (fix the file: its [roster] and [droids] tables say who is on the team)", c.path, err)
	}
	c.data = data
	return c, nil
}

// Unknown lists the file's keys that nothing reads (a second, strict
// reading of it): asked by doctor and who alone, not by every reserve,
// claim and send that reads the threshold.
func (c *Config) Unknown() []UnknownKey {
	if c.data == nil {
		return nil
	}
	return unknownKeys(c.path, c.data)
}

// SilentAfter is the team's silence threshold: [roster] silent_after, or
// DefaultSilentAfter. A value shorter than MinSilence would call droids
// that work silent, and is refused.
func (c *Config) SilentAfter() (time.Duration, error) {
	v := strings.TrimSpace(c.Roster.SilentAfter)
	if v == "" {
		return DefaultSilentAfter, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < MinSilence || d > maxSilentAfter {
		return 0, fmt.Errorf("%s: [roster] silent_after = %q: give a duration from %s to %s (e.g. \"1h\"); "+
			"a droid's sighting moves at most every %s, so a shorter one would call live droids silent",
			c.path, v, records.ShortDuration(MinSilence), records.ShortDuration(maxSilentAfter), records.ShortDuration(Interval))
	}
	return d, nil
}

// DroidNames are the droids [droids] names lists. A name that is not a
// droid's is an error naming the file: a message must not be refused, or
// sent, on a misread roster.
func (c *Config) DroidNames() ([]string, error) {
	for _, n := range c.Droids.Names {
		if err := records.ValidateDroid(n); err != nil {
			return nil, fmt.Errorf("%s: [droids] names: %w", c.path, err)
		}
	}
	return c.Droids.Names, nil
}
