package commands

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-queen/git-queen/internal/format/records"
)

// QueenBee's short flags (its queen CLI) that mean here what they mean
// there, each an alias of the long flag:
//
//	-r  --reason     reserve, assign, claim, release (unreserve); here unassign and renew too
//	-f  --force      reserve: grant despite conflicts
//	-u  --unread     msg inbox
//	-a  --all        release (unreserve --all)
//	-x  --exclusive  reserve;  -n --limit  msg inbox, msg sent;  -s --subject  msg send
//
// One QueenBee short flag means something else here: msg send -i is
// --importance there and --issue here. takeShortIssue keeps a QueenBee
// command line from filing a message under an issue named "high".

// Short spellings of the flags above, one place for each letter.
var (
	reasonShort = []string{"r"}
	forceShort  = []string{"f"}
	unreadShort = []string{"u"}
	allShort    = []string{"a"}
)

// issueShortFlag is msg send's -i, a flag of its own rather than an alias
// of --issue so that a command can tell which spelling it was given
// (urfave/cli sets every alias of a flag that was set).
func issueShortFlag(dest *string) cli.Flag {
	return &cli.StringFlag{Name: "i", Hidden: true, Destination: dest}
}

// takeShortIssue makes msg send's -i VALUE the issue (--issue VALUE), and
// refuses it when VALUE is an importance (low, normal, high, urgent):
// QueenBee reads that line as --importance VALUE, git-queen as --issue
// VALUE, and neither reading can be assumed. --issue and --importance
// spelled out pass.
func takeShortIssue(c *cli.Context, issue *string, short string) error {
	if !c.IsSet("i") {
		return nil
	}
	if c.IsSet("issue") {
		return &UsageError{Command: commandPath(c), Msg: "-i is --issue: give one of them, not both"}
	}
	if importance := strings.ToLower(short); slices.Contains(records.Importances, importance) {
		return &UsageError{Command: commandPath(c), Msg: fmt.Sprintf(
			"-i %s is ambiguous: in QueenBee -i is --importance (a message of importance %s), here it is --issue "+
				"(a message about an issue named %q); say --importance %s or --issue %s", short, importance, short, importance, short)}
	}
	*issue = short
	return nil
}
