package sweep

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/results"
)

// ErrPlanChanged is returned by Prepare when the directory holds a
// different plan.
var ErrPlanChanged = errors.New("the directory holds a different sweep")

// Prepare makes dir the sweep directory of p: it creates dir and runs/ and
// writes plan.json, or, when dir already has one, checks that it is the
// same plan (so a rerun resumes it) and fails with ErrPlanChanged, saying
// what differs, unless force is set; then the new plan replaces it, its
// record (runs.csv) is removed and runs that no longer match are redone.
// A plan that differs only in fidelity thresholds (config.IsThreshold)
// resumes the sweep: plan.json takes them, the runs already done keep
// their verdicts, and note says which thresholds changed ("" when none).
func Prepare(dir string, p *results.Plan, force bool) (note string, err error) {
	if err := results.SweepDir(dir).Create(); err != nil {
		return "", fmt.Errorf("sweep directory: %w", err)
	}
	old, err := results.ReadPlan(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil && !force:
		return "", fmt.Errorf("%w (use --force to replace it)", err)
	case err == nil:
		d := PlanDiff(old, p)
		if d == "" {
			note = ThresholdChanges(old, p)
			if note == "" {
				return "", nil
			}
			note = "fidelity thresholds changed since the sweep began (" + note + "): runs from now on are judged by the new ones, runs already done keep their verdicts"
			return note, results.WritePlan(dir, p)
		}
		if !force {
			return "", fmt.Errorf("%w: %s: %s; use another --out, or --force to replace the plan (runs that no longer match it are redone)",
				ErrPlanChanged, results.SweepDir(dir).File(results.PlanFile), d)
		}
	}
	if err == nil {
		// The record's rows are runs of the plan being replaced.
		if err := os.Remove(results.SweepDir(dir).File(results.RunsFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("sweep directory: %w", err)
		}
	}
	return "", results.WritePlan(dir, p)
}

// ThresholdChanges lists the fidelity thresholds of plan b's base that
// differ from plan a's ("fidelity.thread_mean_wait 20µs → 50µs, …"), or ""
// when none does.
func ThresholdChanges(a, b *results.Plan) string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(b.Base)) {
		if v, ok := a.Base[k]; config.IsThreshold(k) && (!ok || v != b.Base[k]) {
			out = append(out, fmt.Sprintf("%s %s → %s", k, orUnset(v, ok), b.Base[k]))
		}
	}
	return strings.Join(out, ", ")
}

// PlanDiff says how plan b differs from plan a, or "" when they are the
// same sweep (the preset name alone does not count, nor do the fidelity
// thresholds: they judge runs, they do not configure them).
func PlanDiff(a, b *results.Plan) string {
	switch {
	case a.Scenario != b.Scenario:
		return fmt.Sprintf("scenario %s, now %s", a.Scenario, b.Scenario)
	case a.Seed != b.Seed:
		return fmt.Sprintf("base seed %d, now %d", a.Seed, b.Seed)
	case a.Repeat != b.Repeat:
		return fmt.Sprintf("%d repeats, now %d", a.Repeat, b.Repeat)
	case a.Grid != b.Grid:
		return fmt.Sprintf("grid %t, now %t", a.Grid, b.Grid)
	case !jsonEqual(a.Vary, b.Vary):
		return fmt.Sprintf("varied %s, now %s", describeAxes(a.Vary), describeAxes(b.Vary))
	}
	for _, k := range slices.Sorted(maps.Keys(a.Base)) {
		if config.IsThreshold(k) {
			continue
		}
		if v, ok := b.Base[k]; !ok || v != a.Base[k] {
			return fmt.Sprintf("base configuration %s=%s, now %s", k, a.Base[k], orUnset(v, ok))
		}
	}
	// A key a lacks and b sets to its default is one this emu added since
	// a was written (a new setting keeps the old behaviour as its
	// default), not a change: the sweep resumes across the upgrade.
	defaults := map[string]string{}
	if cfg, err := config.DefaultConfig(b.Scenario); err == nil {
		defaults = config.Values(&cfg)
	}
	for _, k := range slices.Sorted(maps.Keys(b.Base)) {
		if _, ok := a.Base[k]; !ok && !config.IsThreshold(k) {
			if d, known := defaults[k]; known && d == b.Base[k] {
				continue
			}
			return fmt.Sprintf("base configuration has no %s, now %s", k, b.Base[k])
		}
	}
	if !jsonEqual(a.Points, b.Points) {
		return fmt.Sprintf("%d points, now %d with different configurations", len(a.Points), len(b.Points))
	}
	if !jsonEqual(a.Runs, b.Runs) {
		return fmt.Sprintf("%d runs, now %d with different ids or seeds", len(a.Runs), len(b.Runs))
	}
	return ""
}

func orUnset(v string, ok bool) string {
	if !ok {
		return "unset"
	}
	return v
}

func describeAxes(axes []results.Axis) string {
	if len(axes) == 0 {
		return "nothing"
	}
	var b bytes.Buffer
	for i, a := range axes {
		if i > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "%s=%v", a.Key, a.Values)
	}
	return b.String()
}

func jsonEqual(a, b any) bool {
	x, errX := json.Marshal(a)
	y, errY := json.Marshal(b)
	return errX == nil && errY == nil && bytes.Equal(x, y)
}
