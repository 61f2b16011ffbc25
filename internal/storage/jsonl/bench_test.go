package jsonl

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
)

// messageLine is a realistic QueenBee message record of about 450 bytes,
// with escapes in the body as real Markdown bodies have.
func messageLine(rng *rand.Rand, id string, read bool) string {
	words := []string{"reserve", "src/api/**", "merge", "the", "tests", "fail", "on", "main", "please", "rebase", "\\n", "\\\"quoted\\\"", "✓"}
	var body strings.Builder
	for body.Len() < 260 {
		body.WriteString(words[rng.IntN(len(words))])
		body.WriteByte(' ')
	}
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(rng.IntN(1e6)) * time.Second)
	extra := ""
	if read {
		extra = `,"read_at":"` + created.Add(time.Hour).Format(time.RFC3339) + `"`
	}
	return fmt.Sprintf(`{"id":"%s","created_at":"%s","from":"droid-%d","to":"droid-%d","subject":"Status of issue qb-%d and the reservation","body":"%s","issue_id":"qb-%d","thread_id":"qb-%d","importance":"normal","read":%v%s}`,
		id, created.Format(time.RFC3339), rng.IntN(20), rng.IntN(20), rng.IntN(500), body.String(), rng.IntN(500), rng.IntN(500), read, extra)
}

// writeMessageLog writes n lines: every fifth is a "read" version of an
// earlier message, as a real inbox log has.
func writeMessageLog(b *testing.B, n int) (string, int64) {
	b.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	var sb strings.Builder
	for i := range n {
		if i%5 == 4 {
			sb.WriteString(messageLine(rng, fmt.Sprintf("qm-%026d", rng.IntN(i)), true))
		} else {
			sb.WriteString(messageLine(rng, fmt.Sprintf("qm-%026d", i), false))
		}
		sb.WriteByte('\n')
	}
	path := filepath.Join(b.TempDir(), "queen_messages.jsonl")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return path, int64(sb.Len())
}

// BenchmarkMaterialize100k is the issue's target: the latest state of a
// 100,000-record (about 45 MB) log in at most 150 ms, file read included.
func BenchmarkMaterialize100k(b *testing.B) {
	path, size := writeMessageLog(b, 100_000)
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		s, err := Load(path, "", nil)
		if err != nil || len(s.Problems) != 0 || s.Lines != 100_000 {
			b.Fatalf("load: %v, %d problems, %d lines", err, len(s.Problems), s.Lines)
		}
	}
}

func benchmarkAppend(b *testing.B, noSync bool) {
	dir := b.TempDir()
	l := &Log{Path: filepath.Join(dir, "queen_messages.jsonl"), Lock: &Lock{Path: filepath.Join(dir, "queen.lock")}, NoSync: noSync}
	rng := rand.New(rand.NewPCG(3, 4))
	line := []byte(messageLine(rng, "qm-01JBENCHMARK0000000000000", false))
	b.SetBytes(int64(len(line) + 1))
	b.ResetTimer()
	for b.Loop() {
		if err := l.Append(line); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkAppendFsync and BenchmarkAppendNoFsync measure one locked append
// of one record (lock, open, tail check, write, close) with and without the
// fsync that is on by default.
func BenchmarkAppendFsync(b *testing.B)   { benchmarkAppend(b, false) }
func BenchmarkAppendNoFsync(b *testing.B) { benchmarkAppend(b, true) }

// BenchmarkMaterialize100kSeedPeer is the peer: the seed's ReadAll, a
// bufio.Scanner (with its limit raised so the file reads at all) and
// encoding/json into a struct per line, then a latest-by-id map.
func BenchmarkMaterialize100kSeedPeer(b *testing.B) {
	path, size := writeMessageLog(b, 100_000)
	type message struct {
		ID         string    `json:"id"`
		CreatedAt  time.Time `json:"created_at"`
		From       string    `json:"from"`
		To         string    `json:"to"`
		Subject    string    `json:"subject"`
		Body       string    `json:"body"`
		IssueID    string    `json:"issue_id"`
		ThreadID   string    `json:"thread_id"`
		Importance string    `json:"importance"`
		Read       bool      `json:"read"`
	}
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<30)
		latest := map[string]*message{}
		for sc.Scan() {
			var m message
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				b.Fatal(err)
			}
			latest[m.ID] = &m
		}
		f.Close()
		if len(latest) == 0 {
			b.Fatal("nothing read")
		}
	}
}

// BenchmarkPlanCompact is a compaction's first pass alone (every line
// parsed for its id and version time, on every core, into the id table)
// over a 100,000-record log the page cache holds.
func BenchmarkPlanCompact(b *testing.B) {
	path, size := writeMessageLog(b, 100_000)
	l := &Log{Path: path, Versions: records.Versions}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		plan, err := l.planCompact(f, false)
		if err != nil || plan.lines != 100_000 {
			b.Fatalf("plan: %v, %d lines", err, plan.lines)
		}
	}
}

// BenchmarkSelectFile100k is one selection over a 100,000-record log with
// no cache: the fields of every line and the current version of each id,
// as a first msg stats reads them.
func BenchmarkSelectFile100k(b *testing.B) {
	path, size := writeMessageLog(b, 100_000)
	q := Query{Fields: []string{"to", "from", "importance", "created_at", "deleted", "read"}, Versions: records.Versions}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		entries, problems, err := SelectFile(path, q)
		if err != nil || len(problems) != 0 || len(entries) == 0 {
			b.Fatalf("select: %v, %d problems, %d entries", err, len(problems), len(entries))
		}
	}
}
