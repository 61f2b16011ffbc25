// Command agentbench measures what agents feel of git-queen (issue 15):
//
//   - wait: how long `git queen msg wait` takes to return after a message
//     for it is appended to the store (the append done here, directly, so
//     that only the wake-up is timed), over -n rounds: median and p95;
//   - mcp: the time of one tool call through `git queen mcp` (the SDK's
//     client, a server kept running) against the same command run as a
//     process (`git queen check PATH --json`), over -n calls each.
//
// Run it in a repository where `git queen init --droid ann` ran, with
// git-queen and git-queen-mcp on PATH (scripts/bench/agents.sh does all
// that).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/storage/workspace"
)

func main() {
	mode := flag.String("mode", "wait", "wait or mcp")
	n := flag.Int("n", 50, "rounds")
	flag.Parse()
	var times []time.Duration
	var peer []time.Duration
	switch *mode {
	case "wait":
		times = waitRounds(*n)
	case "mcp":
		times, peer = mcpRounds(*n)
	default:
		log.Fatalf("unknown mode %q", *mode)
	}
	report(*mode, times)
	if peer != nil {
		report("process", peer)
		fmt.Printf("ratio mcp/process of the medians: %.3f\n", float64(pct(times, 50))/float64(pct(peer, 50)))
	}
}

func pct(d []time.Duration, p int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100
	return s[max(0, min(len(s)-1, i-1))]
}

func report(name string, d []time.Duration) {
	fmt.Printf("%-8s n=%d median %v p95 %v max %v\n", name, len(d), pct(d, 50).Round(10*time.Microsecond),
		pct(d, 95).Round(10*time.Microsecond), pct(d, 100).Round(10*time.Microsecond))
}

func storeFile() string {
	repo, err := gitrepo.Discover(".")
	if err != nil {
		log.Fatal(err)
	}
	return filepath.Join(repo.CommonDir, workspace.LiveDirName, records.MessagesFile)
}

// waitRounds starts a wait, appends a message it waits for, and times the
// append's end to the wait's return.
func waitRounds(n int) []time.Duration {
	path := storeFile()
	var out []time.Duration
	for i := range n {
		cmd := exec.Command("git", "queen", "--droid", "ann", "msg", "wait", "--from", "bench", "--timeout", "10s", "--json")
		if err := cmd.Start(); err != nil {
			log.Fatal(err)
		}
		time.Sleep(150 * time.Millisecond) // let it start and watch
		now := time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
		id := fmt.Sprintf("qm-01BENCH%017d", time.Now().UnixNano()%1e17)
		line := fmt.Sprintf(`{"id":%q,"created_at":%q,"updated_at":%q,"from":"bench","to":"ann","subject":"round %d","body":"b","importance":"normal","read":false}`+"\n",
			id, now, now, i)
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			log.Fatal(err)
		}
		if _, err := f.WriteString(line); err != nil {
			log.Fatal(err)
		}
		f.Close()
		start := time.Now()
		if err := cmd.Wait(); err != nil {
			log.Fatalf("round %d: msg wait: %v", i, err)
		}
		out = append(out, time.Since(start))
	}
	return out
}

// mcpRounds times check through a running MCP server and as a process.
func mcpRounds(n int) (viaMCP, viaProcess []time.Duration) {
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "agentbench", Version: "1"}, nil)
	s, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command("git", "queen", "--droid", "ann", "mcp")}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	for i := range n + 3 {
		start := time.Now()
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "check", Arguments: map[string]any{"paths": []string{"src/a.go"}}})
		d := time.Since(start)
		if err != nil || res.IsError {
			log.Fatalf("check via mcp: %v %+v", err, res)
		}
		start = time.Now()
		if out, err := exec.Command("git", "queen", "--droid", "ann", "check", "src/a.go", "--json").CombinedOutput(); err != nil {
			log.Fatalf("check: %v\n%s", err, out)
		}
		p := time.Since(start)
		if i >= 3 { // warm-up
			viaMCP, viaProcess = append(viaMCP, d), append(viaProcess, p)
		}
	}
	return viaMCP, viaProcess
}
