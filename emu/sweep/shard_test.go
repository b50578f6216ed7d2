package sweep

import (
	"strings"
	"testing"

	"github.com/dc-emu/emu/internal/emutest"
)

func TestShardsPartitionThePlan(t *testing.T) {
	p := testPlan(t, Spec{Axes: axes(t, "dc.batch=25,50,100,150,300,500"), Repeat: 10})
	for n := 1; n <= 8; n++ {
		owner := map[string]int{}
		sizes := make([]int, n)
		for i := 1; i <= n; i++ {
			for _, r := range (Shard{i, n}).Runs(p) {
				if prev, dup := owner[r.ID]; dup {
					t.Fatalf("n=%d: run %s in shards %d and %d", n, r.ID, prev, i)
				}
				owner[r.ID] = i
				sizes[i-1]++
			}
		}
		if len(owner) != len(p.Runs) {
			t.Fatalf("n=%d: shards cover %d of %d runs", n, len(owner), len(p.Runs))
		}
		lo, hi := sizes[0], sizes[0]
		for _, s := range sizes {
			lo, hi = min(lo, s), max(hi, s)
		}
		if hi-lo > 2 {
			t.Errorf("n=%d: unbalanced shard sizes %v", n, sizes)
		}
		// With at least n repeats, every shard gets every point.
		if n <= p.Repeat {
			for i := 1; i <= n; i++ {
				points := map[string]bool{}
				for _, r := range (Shard{i, n}).Runs(p) {
					points[r.Point] = true
				}
				if len(points) != len(p.Points) {
					t.Errorf("n=%d shard %d has %d of %d points", n, i, len(points), len(p.Points))
				}
			}
		}
	}
	if got := len((Shard{}).Runs(p)); got != len(p.Runs) {
		t.Errorf("the zero shard has %d runs, want all %d", got, len(p.Runs))
	}
}

func TestParseShard(t *testing.T) {
	for in, want := range map[string]Shard{"1/1": {1, 1}, "2/4": {2, 4}, " 3 / 3 ": {3, 3}} {
		got, err := ParseShard(in)
		if err != nil || got != want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"0/4", "5/4", "1/0", "a/b", "1", "", "-1/2", "1/2/3"} {
		if _, err := ParseShard(in); err == nil || !strings.Contains(err.Error(), "--shard") {
			t.Errorf("ParseShard(%q) error = %v, want a --shard error", in, err)
		}
	}
}

func FuzzParseShard(f *testing.F) {
	emutest.AddSeeds[string](f, "1/2", "0/0", "9999999999999999999/1", "1/", "/")
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := ParseShard(s)
		if err == nil && (sh.I < 1 || sh.I > sh.N) {
			t.Fatalf("ParseShard(%q) = %v without error", s, sh)
		}
	})
}
