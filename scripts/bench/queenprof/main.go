// Command queenprof runs a git-queen command in-process, as cmd/git-queen
// does, several times, under a CPU profile: a perf-free way to see where a
// benchmark's time goes inside git-queen. The git commands it starts run
// as usual; their time counts in the wall time printed, not in the
// profile. "%d" in an argument becomes the run's number, so that each run
// can reserve a new pattern.
//
//	go build -o /tmp/queenprof ./scripts/bench/queenprof
//	/tmp/queenprof -cpuprofile cpu.out -n 20 -- reserve 'bench/%d/**' --exclusive
//	go tool pprof -top /tmp/queenprof cpu.out
//	/tmp/queenprof -trace trace.out -n 20 -- sync
//	go tool trace -pprof=syscall trace.out >syscall.pprof && go tool pprof -top -cum syscall.pprof
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"runtime/pprof"
	"runtime/trace"
	"slices"
	"strings"
	"time"

	"github.com/git-queen/git-queen/internal/front/commands"
)

func main() {
	prof := flag.String("cpuprofile", "", "write a CPU profile of all the runs to this file")
	traceOut := flag.String("trace", "", "write an execution trace of all the runs to this file "+
		"(go tool trace -pprof=syscall FILE > syscall.pprof: where the wall time blocks in system calls, fsync, fork/exec and wait included)")
	n := flag.Int("n", 1, "run the command this many times in one process")
	flag.Parse()
	defer record(*traceOut, trace.Start, trace.Stop)()
	defer record(*prof, pprof.StartCPUProfile, pprof.StopCPUProfile)()
	var times []time.Duration
	for i := range *n {
		args := []string{"git-queen"}
		for _, a := range flag.Args() {
			args = append(args, strings.ReplaceAll(a, "%d", fmt.Sprint(i)))
		}
		start := time.Now()
		if code := commands.Main(args); code != 0 {
			log.Printf("run %d: exit %d", i, code)
		}
		times = append(times, time.Since(start))
	}
	slices.Sort(times)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	fmt.Fprintf(os.Stderr, "queenprof: %d runs in one process: median %.1f ms, min %.1f ms, max %.1f ms\n",
		len(times), ms(times[len(times)/2]), ms(times[0]), ms(times[len(times)-1]))
}

// record starts a recording (a trace, a CPU profile) into a new file at
// path, when path is set, and returns what stops it.
func record(path string, start func(io.Writer) error, stop func()) func() {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	if err := start(f); err != nil {
		log.Fatal(err)
	}
	return stop
}
