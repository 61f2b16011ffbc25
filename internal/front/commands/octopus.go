package commands

import (
	"fmt"
	"strings"

	"github.com/git-queen/git-queen/internal/app"
)

// runOctopus is resolve --octopus (app.Octopus).
func runOctopus(o resolveOptions, heads []string) error {
	return show(o.Env, globals{JSON: o.JSON}, app.Octopus, app.OctopusRequest{Branches: heads}, func(res *app.OctopusResult) error {
		fmt.Fprintf(o.Env.Stdout, "merged %s with the driver: octopus merge %s\n", strings.Join(heads, ", "), res.Octopus[:12])
		return nil
	})
}
