package commands

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// fromGit says whether stdin may be git's pipe of the refs being pushed:
// a terminal there means someone ran the pre-push check by hand.
func fromGit(env *Env) bool {
	f, ok := env.Stdin.(*os.File)
	return !ok || !isTerminal(f)
}

// maxPushInput bounds what the pre-push check reads from stdin: a line a
// ref pushed, about 150 bytes each, so a push of 100,000 refs fits.
const maxPushInput = 64 << 20

// readPushRefs reads the lines git writes to the pre-push hook's stdin,
// the refs being pushed; a terminal there means no git ran the hook.
func readPushRefs(env *Env) ([]byte, error) {
	if !fromGit(env) {
		return nil, errors.New("git gives the pre-push hook the refs being pushed on stdin; this one is a terminal or a device such as /dev/null " +
			"(git push runs the hook; to try it by hand, pipe lines in: LOCAL-REF LOCAL-ID REMOTE-REF REMOTE-ID)")
	}
	if env.Stdin == nil {
		return nil, nil
	}
	data, err := io.ReadAll(io.LimitReader(env.Stdin, maxPushInput+1))
	if err != nil {
		return nil, fmt.Errorf("read the refs being pushed: %w", err)
	}
	if len(data) > maxPushInput {
		return nil, fmt.Errorf("the refs being pushed are more than %d MiB on stdin", maxPushInput>>20)
	}
	return data, nil
}
