package harness

import (
	"bytes"
	"context"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for the goroutines of a run.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Every cell logs its start, and a cell that runs longer than the
// interval a progress line per interval: its step of the budget's steps,
// the share done, the elapsed seconds and the seconds left.
func TestCellProgressLines(t *testing.T) {
	old := cellProgressInterval
	cellProgressInterval = 30 * time.Millisecond
	defer func() { cellProgressInterval = old }()
	ty := newToy()
	var buf syncBuffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	text := strings.Replace(base, "steps = 12\n", "steps = 12\ndelay_ms = 20\n", 1)
	e, err := Load(ty.reg, "toy.toml", []byte(text), "")
	if err != nil {
		t.Fatal(err)
	}
	cells := Plan([]*Experiment{e})
	sum, err := NewRunner(ty.reg, Options{Results: t.TempDir(), Jobs: 2, Log: log}).Run(context.Background(), cells)
	if err != nil || sum.Err() != nil {
		t.Fatalf("%v %v", sum, err)
	}
	out := buf.String()
	if n := strings.Count(out, "msg=\"cell started\""); n != len(cells) {
		t.Errorf("%d start lines for %d cells:\n%s", n, len(cells), out)
	}
	// walk-a's cells take 10 steps of 20 ms under a budget of 10 steps.
	re := regexp.MustCompile(`msg="cell progress" cell=toy/walk-a/gauss/s0/n3 step=(\d+) of=10 elapsed=[0-9.]+ done=(\d+)% left=[0-9.]+`)
	m := re.FindAllStringSubmatch(out, -1)
	if len(m) < 2 {
		t.Fatalf("%d progress lines of toy/walk-a/gauss/s0/n3:\n%s", len(m), out)
	}
	for _, l := range m {
		if l[1]+"0" != l[2] && !(l[1] == "0" && l[2] == "0") {
			t.Errorf("step %s of 10 is not %s%%", l[1], l[2])
		}
	}
}
