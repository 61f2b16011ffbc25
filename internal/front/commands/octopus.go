package commands

import (
	"fmt"
	"strings"

	"github.com/git-queen/git-queen/internal/app"
)

// runOctopus is resolve --octopus (app.Octopus).
func runOctopus(o resolveOptions, heads []string) error {
	res, err := app.Octopus.Run(o.Env.session(globals{}), app.OctopusRequest{Branches: heads})
	if err != nil {
		return err
	}
	if o.JSON {
		return printJSON(o.Env.Stdout, res)
	}
	fmt.Fprintf(o.Env.Stdout, "merged %s with the driver: octopus merge %s\n", strings.Join(heads, ", "), res.Octopus[:12])
	return nil
}
