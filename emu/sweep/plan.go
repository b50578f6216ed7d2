package sweep

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/results"
)

// Defaults of a sweep.
const (
	// DefaultRepeat is the paper's number of runs per point.
	DefaultRepeat = 10
	// DefaultSeed is the base seed when none is given: fixed, so that
	// rerunning the same command (to resume, or on another shard) plans
	// the same seeds.
	DefaultSeed = 1
	// maxRuns bounds a plan; more is a typo, not an experiment.
	maxRuns = 1_000_000
)

// Spec is what a sweep varies and repeats, before NewPlan resolves it.
type Spec struct {
	// Preset is recorded in the plan when the sweep came from one.
	Preset   string
	Scenario string
	// Settings build the base configuration on top of the scenario's
	// defaults (preset settings, then --trace and --set).
	Settings []config.Setting
	Axes     []results.Axis
	// Grid runs the cross product of the axes instead of one axis at a
	// time around the base.
	Grid   bool
	Repeat int
	// Seed is the base seed every run's seed is derived from; 0 means
	// DefaultSeed.
	Seed uint64
}

// PointConfig resolves point id of plan p (seed 0): the scenario with the
// base settings and then the point's own, as NewPlan resolved it. A plan
// read back from plan.json resolves as the one NewPlan made.
func PointConfig(p *results.Plan, id string) (config.Config, error) {
	pt, ok := p.Point(id)
	if !ok {
		return config.Config{}, fmt.Errorf("sweep: the plan has no point %s", id)
	}
	sets, err := parseSettings(append(slices.Clone(p.Settings), pt.Settings...))
	if err != nil {
		return config.Config{}, fmt.Errorf("sweep: point %s: %w", id, err)
	}
	cfg, err := config.Resolve(p.Scenario, sets)
	if err != nil {
		return config.Config{}, fmt.Errorf("sweep: point %s: %w", id, err)
	}
	return cfg, nil
}

// NewPlan resolves a spec: it builds every point's configuration and fails,
// naming the axis, value and key, if any does not validate, so that a bad
// value stops the sweep before the first run.
func NewPlan(s Spec) (*results.Plan, error) {
	if s.Repeat < 1 {
		return nil, fmt.Errorf("--repeat %d: want at least 1", s.Repeat)
	}
	if s.Seed == 0 {
		s.Seed = DefaultSeed
	}
	for _, st := range s.Settings {
		if err := varyable(st.Key); err != nil {
			return nil, err
		}
	}
	for i, a := range s.Axes {
		if err := checkAxis(a); err != nil {
			return nil, err
		}
		for _, b := range s.Axes[:i] {
			if b.Key == a.Key {
				return nil, fmt.Errorf("--vary %s is given twice", a.Key)
			}
		}
	}
	base, err := config.Resolve(s.Scenario, s.Settings)
	if err != nil {
		return nil, fmt.Errorf("base configuration: %w", err)
	}
	p := &results.Plan{
		Version: results.PlanVersion, Preset: s.Preset, Scenario: s.Scenario,
		Vary: []results.Axis{}, Grid: s.Grid, Repeat: s.Repeat, Seed: s.Seed,
		Settings: formatSettings(s.Settings), Base: values(&base),
		Points: []results.Point{}, Runs: []results.Run{},
	}
	for _, a := range s.Axes {
		a.Default = axisDefault(a, &base)
		p.Vary = append(p.Vary, a)
	}
	b, err := baselineAxis(p.Vary, s.Grid)
	if err != nil {
		return nil, err
	}
	combos := oneAtATime(p.Vary)
	if s.Grid {
		combos = grid(p.Vary)
	}
	comboPoint := make([]int, len(combos))
	if n := len(combos) * s.Repeat; n > maxRuns {
		return nil, fmt.Errorf("the plan has %d runs; more than %d is surely a mistake", n, maxRuns)
	}
	byConfig := map[string]int{}
	for ci, c := range combos {
		sets, err := parseSettings(c.settings)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.name(), err)
		}
		cfg, err := config.Resolve(s.Scenario, append(slices.Clone(s.Settings), sets...))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.name(), err)
		}
		vals := values(&cfg)
		key := canonical(vals)
		if i, ok := byConfig[key]; ok {
			mergeLabels(p.Points[i].Labels, c.labels)
			comboPoint[ci] = i
			continue
		}
		byConfig[key] = len(p.Points)
		comboPoint[ci] = len(p.Points)
		p.Points = append(p.Points, results.Point{
			Labels: maps.Clone(c.labels), Settings: c.settings, Params: diff(p.Base, vals),
		})
	}
	width := max(2, len(fmt.Sprint(len(p.Points))))
	for i := range p.Points {
		p.Points[i].ID = fmt.Sprintf("p%0*d", width, i+1)
	}
	if b >= 0 {
		setBaselines(p, b, combos, comboPoint)
	}
	for r := 1; r <= s.Repeat; r++ {
		for _, pt := range p.Points {
			p.Runs = append(p.Runs, results.Run{
				ID: fmt.Sprintf("%s-r%d", pt.ID, r), Point: pt.ID, Repeat: r,
				Seed: runSeed(s.Seed, pt.Params, r),
			})
		}
	}
	return p, nil
}

// combo is one combination of axis values before resolution.
type combo struct {
	labels   map[string]string
	settings []string
	order    []string // axis keys in order, for messages
}

func (c combo) name() string {
	if len(c.order) == 0 {
		return "base configuration"
	}
	parts := make([]string, len(c.order))
	for i, k := range c.order {
		parts[i] = k + "=" + c.labels[k]
	}
	return "--vary " + strings.Join(parts, " ")
}

// oneAtATime returns, for each axis in turn, each of its values with every
// other parameter at the base; without axes, the base alone.
func oneAtATime(axes []results.Axis) []combo {
	if len(axes) == 0 {
		return []combo{{labels: map[string]string{}, settings: []string{}}}
	}
	var out []combo
	for _, a := range axes {
		for i, v := range a.Values {
			out = append(out, combo{
				labels:   map[string]string{a.Key: v},
				settings: slices.Clone(a.Settings[i]),
				order:    []string{a.Key},
			})
		}
	}
	return out
}

// grid returns the cross product of the axes, the first axis varying
// slowest.
func grid(axes []results.Axis) []combo {
	out := []combo{{labels: map[string]string{}, settings: []string{}}}
	for _, a := range axes {
		var next []combo
		for _, c := range out {
			for i, v := range a.Values {
				l := maps.Clone(c.labels)
				l[a.Key] = v
				next = append(next, combo{
					labels:   l,
					settings: append(slices.Clone(c.settings), a.Settings[i]...),
					order:    append(slices.Clone(c.order), a.Key),
				})
			}
		}
		out = next
	}
	return out
}

// values returns the canonical keys of c a plan names it by
// (config.PlanValues): without run.seed, which a plan leaves at 0 and sets
// per run, and without keys added since plans were first written while
// they hold their defaults.
func values(c *config.Config) map[string]string {
	return config.PlanValues(c)
}

// canonical is a configuration as one comparable string.
func canonical(v map[string]string) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(v)) {
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(v[k])
		b.WriteByte('\n')
	}
	return b.String()
}

func diff(base, v map[string]string) map[string]string {
	d := map[string]string{}
	for k, x := range v {
		if b, ok := base[k]; !ok || b != x {
			d[k] = x
		}
	}
	for k := range base {
		if _, ok := v[k]; !ok {
			d[k] = results.Unset
		}
	}
	return d
}

// axisDefault names the base configuration's value of a plain axis (labels
// that are the keys' values), or "" when it has none: a preset's labelled
// axis, or keys whose expansion has different values in the base.
func axisDefault(a results.Axis, base *config.Config) string {
	if !a.Plain() {
		return ""
	}
	def := ""
	for i, k := range strings.Split(a.Key, "+") {
		d, ok := config.Lookup(base, k)
		if !ok || d == "" || (i > 0 && d != def) {
			return ""
		}
		def = d
	}
	return def
}
