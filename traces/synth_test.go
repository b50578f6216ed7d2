package traces

import (
	"bytes"
	"flag"
	"os"
	"testing"
	"time"

	"github.com/dc-emu/emu/tracefmt"
)

var update = flag.Bool("update", false, "rewrite the synthetic trace files from their generators")

const mbit = 1e6

// synthetic returns the generators of the shipped synthetic traces.
func synthetic() map[string]*tracefmt.Trace {
	square := &tracefmt.Trace{End: 20 * time.Second}
	for i := range 20 {
		rate := 5 * mbit
		if i%2 == 1 {
			rate = 25 * mbit
		}
		square.Steps = append(square.Steps, tracefmt.Step{At: time.Duration(i) * time.Second, Down: rate})
	}
	return map[string]*tracefmt.Trace{
		"constant-20mbit.csv": {
			Steps: []tracefmt.Step{{Down: 20 * mbit, Up: 20 * mbit}},
			End:   60 * time.Second, HasUp: true,
		},
		"step-10-30-10mbit.csv": {
			Steps: []tracefmt.Step{{Down: 10 * mbit}, {At: 10 * time.Second, Down: 30 * mbit}, {At: 20 * time.Second, Down: 10 * mbit}},
			End:   30 * time.Second,
		},
		"square-5-25mbit-2s.csv": square,
		"outage-10mbit-2s.csv": {
			Steps: []tracefmt.Step{{Down: 10 * mbit}, {At: 5 * time.Second, Down: 0}, {At: 7 * time.Second, Down: 10 * mbit}},
			End:   12 * time.Second,
		},
	}
}

// TestSynthetic checks that each synthetic file is what its generator
// writes, and that reading it back gives the generator's trace.
func TestSynthetic(t *testing.T) {
	for name, gen := range synthetic() {
		var buf bytes.Buffer
		if err := tracefmt.WriteCSV(&buf, gen); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if *update {
			if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, _, err := ReadFile(name)
		if err != nil {
			t.Fatalf("%s is not shipped (run with -update): %v", name, err)
		}
		if !bytes.Equal(got, buf.Bytes()) {
			t.Errorf("%s differs from its generator (run with -update):\n got %q\nwant %q", name, got, buf.Bytes())
		}
		tr, err := Load(name, tracefmt.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if tr.End != gen.End || len(tr.Steps) != len(gen.Steps) || tr.HasUp != gen.HasUp {
			t.Fatalf("%s read back as %v with %d steps, want %v with %d", name, tr.End, len(tr.Steps), gen.End, len(gen.Steps))
		}
		for i := range gen.Steps {
			if tr.Steps[i] != gen.Steps[i] {
				t.Errorf("%s step %d = %+v, want %+v", name, i, tr.Steps[i], gen.Steps[i])
			}
		}
	}
}
