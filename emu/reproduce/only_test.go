package reproduce

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dc-emu/emu/emu/sweep"
)

func held(p *Plan) []string {
	var out []string
	for _, s := range p.Sweeps {
		if s.Held {
			out = append(out, s.Preset.Name)
		}
	}
	return out
}

func TestOnly(t *testing.T) {
	for _, c := range []struct {
		patterns []string
		runs     []string // the presets left to run; nil: every one
		err      string
	}{
		{patterns: nil},
		{patterns: []string{"delay-ratio-*"}, runs: []string{"delay-ratio-low", "delay-ratio-low-fairness", "delay-ratio-high", "delay-ratio-high-fairness"}},
		{patterns: []string{"loss", "split"}, runs: []string{"split", "loss"}}, // table order
		{patterns: []string{"!*-fairness", "!sc-pairs", "!*loss"}, runs: []string{"batch", "split", "bw-ratio", "bw-ratio-matched", "delay-ratio-low", "delay-ratio-high", "duplication"}},
		{patterns: []string{"bw-ratio*", "!*-fairness"}, runs: []string{"bw-ratio", "bw-ratio-matched"}},
		{patterns: []string{"ngtcp2-*"}, err: `preset pattern "ngtcp2-*" matches no preset of parts core`},
		{patterns: []string{"[batch"}, err: `preset pattern "[batch"`},
		{patterns: []string{"batch", "!batch"}, err: "leave none to run"},
	} {
		p, err := NewPlan("quick", nil)
		if err != nil {
			t.Fatal(err)
		}
		err = p.Only(c.patterns)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Only(%q): %v, want %q", c.patterns, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Only(%q): %v", c.patterns, err)
			continue
		}
		var runs []string
		for _, s := range p.Sweeps {
			if !s.Held {
				runs = append(runs, s.Preset.Name)
			}
		}
		if c.runs == nil {
			c.runs = p.Presets()
		}
		if !slices.Equal(runs, c.runs) {
			t.Errorf("Only(%q) runs %v, want %v (held %v)", c.patterns, runs, c.runs, held(p))
		}
	}
}

// TestExecuteHeld: a held preset is neither run nor made; the estimate
// leaves its runs out of what is to do now, and the plan still reports it.
func TestExecuteHeld(t *testing.T) {
	root := t.TempDir()
	p := smallPlan(t)
	if err := p.Only([]string{"!batch-fairness"}); err != nil {
		t.Fatal(err)
	}
	f := newFake()
	out, err := Execute(context.Background(), root, p, sweep.Options{Runner: f.Run})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Calls()) != 9 || len(out.Sweeps) != 1 || out.Sweeps[0].Preset != "sc-pairs" || out.Complete(p) {
		t.Errorf("held batch-fairness: %d runs, outcome %+v, complete %v", len(f.Calls()), out.Sweeps, out.Complete(p))
	}
	if _, err := os.Stat(filepath.Join(root, "batch-fairness")); !os.IsNotExist(err) {
		t.Errorf("the held preset's directory: %v", err)
	}
	per, all, todo := p.Estimate(root, 1)
	if todo.Runs != 0 || all.Runs != 27 || per[0][1].Runs != 18 {
		t.Errorf("estimate: all %+v, to do %+v, held preset %+v", all, todo, per[0])
	}
	var b strings.Builder
	if err := WritePlan(&b, p, root, 1); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "held (") || !strings.Contains(b.String(), "18 more in presets held by --presets") {
		t.Errorf("plan does not show the held preset:\n%s", b.String())
	}
}
