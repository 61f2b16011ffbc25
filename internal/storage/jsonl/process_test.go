package jsonl

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
)

// The tests in this file start real processes: the test binary runs itself
// as a writer when JSONL_TEST_HELPER is set.

const helperEnv = "JSONL_TEST_HELPER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(runHelper(mode, os.Args[len(os.Args)-4:]))
	}
	os.Exit(m.Run())
}

// runHelper is the body of a writer process. Arguments: log path, lock
// path, writer name, and a count (append) or first sequence number (ack).
func runHelper(mode string, args []string) int {
	l := &Log{Path: args[0], Lock: &Lock{Path: args[1]}}
	writer := args[2]
	n, _ := strconv.Atoi(args[3])
	switch mode {
	case "hold":
		// Take the lock, say so, and stay inside it until stopped or killed.
		return func() int {
			err := l.Lock.Do(func(*Tx) error {
				fmt.Println("locked")
				time.Sleep(time.Hour)
				return nil
			})
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
			return 0
		}()
	case "append":
		for i := range n {
			rec := map[string]any{"id": fmt.Sprintf("%s-%04d", writer, i), "writer": writer, "n": i,
				"pad": strings.Repeat("p", 100+i%300)}
			if err := l.Append(rec); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
		}
	case "ack":
		// Append until killed, acknowledging each record once Append has
		// returned. Sizes up to 1 MiB make a kill in the middle of a write
		// (a torn tail) possible.
		out := bufio.NewWriter(os.Stdout)
		for i := n; ; i++ {
			size := 50 + rand.IntN(1<<10)
			if rand.IntN(8) == 0 {
				size = rand.IntN(1 << 20)
			}
			rec := map[string]any{"id": fmt.Sprintf("rec-%06d", i), "n": i, "pad": strings.Repeat("k", size)}
			if err := l.Append(rec); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
			fmt.Fprintln(out, i)
			out.Flush()
		}
	}
	return 0
}

func helperCommand(t *testing.T, mode string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^$"}, args...)...)
	cmd.Env = append(os.Environ(), helperEnv+"="+mode)
	return cmd
}

func TestConcurrentProcessesAppendWithoutInterleaving(t *testing.T) {
	const writers, perWriter = 8, 500
	dir := t.TempDir()
	logPath, lockPath := filepath.Join(dir, "log.jsonl"), filepath.Join(dir, "queen.lock")
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for w := range writers {
		cmd := helperCommand(t, "append", logPath, lockPath, fmt.Sprintf("w%d", w), strconv.Itoa(perWriter))
		wg.Go(func() {
			if out, err := cmd.CombinedOutput(); err != nil {
				errs[w] = fmt.Errorf("writer %d: %v: %s", w, err, out)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	next := map[string]int{}
	count := 0
	out := make([][]byte, 3)
	for line := range jsonline.Lines(data) {
		count++
		if !line.Terminated {
			t.Fatalf("line %d has no newline", line.No)
		}
		if err := jsonline.ObjectFields(line.Raw, []string{"id", "writer", "n"}, out); err != nil {
			t.Fatalf("line %d does not parse (interleaved?): %v: %.80s", line.No, err, line.Raw)
		}
		writer, _ := jsonline.String(out[1])
		n, _ := strconv.Atoi(string(out[2]))
		if n != next[writer] {
			t.Fatalf("line %d: writer %s record %d, expected %d (lost or reordered)", line.No, writer, n, next[writer])
		}
		next[writer]++
	}
	if count != writers*perWriter {
		t.Fatalf("%d lines, want %d", count, writers*perWriter)
	}
	for w := range writers {
		if got := next[fmt.Sprintf("w%d", w)]; got != perWriter {
			t.Fatalf("writer w%d: %d records, want %d", w, got, perWriter)
		}
	}
}

func TestWriterKilledMidAppend(t *testing.T) {
	rounds := 50
	if testing.Short() {
		rounds = 10
	}
	dir := t.TempDir()
	logPath, lockPath := filepath.Join(dir, "log.jsonl"), filepath.Join(dir, "queen.lock")
	l := &Log{Path: logPath, Lock: &Lock{Path: lockPath}}
	quarantined := 0
	l.OnRepair = func(r Repair) {
		if r.Quarantine != "" {
			quarantined++
		}
	}
	next := 0
	for round := range rounds {
		cmd := helperCommand(t, "ack", logPath, lockPath, "killed", strconv.Itoa(next))
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		acked := next - 1 // nothing acknowledged yet this round
		done := make(chan struct{})
		go func() {
			defer close(done)
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				if n, err := strconv.Atoi(sc.Text()); err == nil {
					acked = n
				}
			}
		}()
		time.Sleep(time.Duration(5+rand.IntN(60)) * time.Millisecond)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		// Read every acknowledgement before Wait, which closes the pipe:
		// waiting first can drop acks still in it.
		<-done
		_ = cmd.Wait()

		state, err := l.Load()
		if err != nil {
			t.Fatal(err)
		}
		// Every acknowledged record is there; at most the one in flight is
		// not; nothing else appeared.
		for i := next; i <= acked; i++ {
			if _, ok := state.Get(fmt.Sprintf("rec-%06d", i)); !ok {
				t.Fatalf("round %d: acknowledged record %d is missing", round, i)
			}
		}
		highest := acked
		if _, ok := state.Get(fmt.Sprintf("rec-%06d", acked+1)); ok {
			highest = acked + 1 // written, killed before the acknowledgement
		}
		if _, ok := state.Get(fmt.Sprintf("rec-%06d", highest+1)); ok {
			t.Fatalf("round %d: record %d exists but was never attempted", round, highest+1)
		}
		for _, p := range state.Problems {
			if !strings.Contains(p.Msg, "incomplete last line") {
				t.Fatalf("round %d: %v", round, p)
			}
		}
		// The next append repairs whatever the kill left and is well formed.
		marker := fmt.Sprintf("marker-%d", round)
		if err := l.Append(map[string]string{"id": marker}); err != nil {
			t.Fatal(err)
		}
		state, err = l.Load()
		if err != nil {
			t.Fatal(err)
		}
		if len(state.Problems) != 0 {
			t.Fatalf("round %d: after the next append: %v", round, state.Problems)
		}
		if r, ok := state.Get(marker); !ok || r.Line != state.Lines {
			t.Fatalf("round %d: the marker is not the last, well-formed line", round)
		}
		next = highest + 1
	}
	t.Logf("%d rounds, %d records, %d torn tails quarantined", rounds, next, quarantined)
}
