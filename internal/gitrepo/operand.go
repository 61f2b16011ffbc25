package gitrepo

import (
	"fmt"
	"strings"
)

// OptionError is an argument for git that git would read as an option: a
// remote named "--upload-pack=CMD" runs CMD.
type OptionError struct {
	// What names the argument ("remote", "branch"); Value is what was given.
	What, Value string
}

func (e *OptionError) Error() string {
	return fmt.Sprintf("%s %q starts with '-', which git would read as an option; name it without the leading '-'", e.What, e.Value)
}

// RefuseOption returns an *OptionError when value starts with "-". It is
// for arguments git takes where "--" cannot go before them (a revision
// followed by options, a remote's name in a message); everywhere else the
// argument goes after "--" or "--end-of-options" as well.
func RefuseOption(what, value string) error {
	if strings.HasPrefix(value, "-") {
		return &OptionError{What: what, Value: value}
	}
	return nil
}
