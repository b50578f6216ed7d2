package sweep

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dc-emu/emu/emu/results"
)

// Shard selects a deterministic part of a plan: shard I of N (1 ≤ I ≤ N).
// The zero Shard is the whole plan.
//
// Run r (1-based repeat) of point p (0-based index in the plan) belongs to
// shard ((p + r − 1) mod N) + 1: the repeats of each point rotate over the
// shards, so every shard gets a share of every point (points differ in how
// long they take) and the shards of a plan are disjoint and cover it.
type Shard struct{ I, N int }

// ParseShard parses "i/n".
func ParseShard(s string) (Shard, error) {
	is, ns, ok := strings.Cut(s, "/")
	i, errI := strconv.Atoi(strings.TrimSpace(is))
	n, errN := strconv.Atoi(strings.TrimSpace(ns))
	if !ok || errI != nil || errN != nil {
		return Shard{}, fmt.Errorf("--shard %q: want i/n, e.g. 2/4 (shard 2 of 4; shards count from 1)", s)
	}
	if n < 1 || i < 1 || i > n {
		return Shard{}, fmt.Errorf("--shard %q: want 1 ≤ i ≤ n (shards count from 1)", s)
	}
	return Shard{i, n}, nil
}

func (s Shard) String() string {
	if s.N == 0 {
		return "all"
	}
	return fmt.Sprintf("%d/%d", s.I, s.N)
}

// Runs returns the runs of p in this shard, in plan order.
func (s Shard) Runs(p *results.Plan) []results.Run {
	if s.N <= 1 {
		return append([]results.Run(nil), p.Runs...)
	}
	index := map[string]int{}
	for i, pt := range p.Points {
		index[pt.ID] = i
	}
	var out []results.Run
	for _, r := range p.Runs {
		if (index[r.Point]+r.Repeat-1)%s.N == s.I-1 {
			out = append(out, r)
		}
	}
	return out
}
