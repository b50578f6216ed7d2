package sweep

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/dc-emu/emu/emu/config"
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
	Axes     []Axis
	// Grid runs the cross product of the axes instead of one axis at a
	// time around the base.
	Grid   bool
	Repeat int
	// Seed is the base seed every run's seed is derived from; 0 means
	// DefaultSeed.
	Seed uint64
}

// Plan is a resolved sweep: its points and runs, fixed before any run
// starts. It is written as plan.json (docs/results.md).
type Plan struct {
	Version  int    `json:"version"`
	Preset   string `json:"preset,omitempty"`
	Scenario string `json:"scenario"`
	Vary     []Axis `json:"vary"`
	Grid     bool   `json:"grid"`
	Repeat   int    `json:"repeat"`
	// Seed is the base seed.
	Seed uint64 `json:"seed"`
	// Settings are the base settings as given (key=value).
	Settings []string `json:"settings"`
	// Base is every canonical key of the base configuration.
	Base   map[string]string `json:"base"`
	Points []Point           `json:"points"`
	Runs   []Run             `json:"runs"`
}

// Point is one configuration of a sweep.
type Point struct {
	ID string `json:"id"`
	// Labels holds, for each axis whose value this point is, that value.
	// One axis at a time, a point equal to the base carries the labels of
	// every axis value that resolved to it.
	Labels map[string]string `json:"labels"`
	// Settings are applied on top of the base settings.
	Settings []string `json:"settings"`
	// Params are the canonical keys whose value differs from the base;
	// "(unset)" marks a key the point does not have (fewer flows).
	Params map[string]string `json:"params"`
	// Config is the resolved configuration (seed 0); only in plans made by
	// NewPlan, not in plans read from plan.json.
	Config config.Config `json:"-"`
}

// Run is one repeat of one point.
type Run struct {
	ID     string `json:"id"`
	Point  string `json:"point"`
	Repeat int    `json:"repeat"` // 1-based
	Seed   uint64 `json:"seed"`
}

const planVersion = 1

// NewPlan resolves a spec: it builds every point's configuration and fails,
// naming the axis, value and key, if any does not validate, so that a bad
// value stops the sweep before the first run.
func NewPlan(s Spec) (*Plan, error) {
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
		if err := a.check(); err != nil {
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
	p := &Plan{
		Version: planVersion, Preset: s.Preset, Scenario: s.Scenario,
		Vary: []Axis{}, Grid: s.Grid, Repeat: s.Repeat, Seed: s.Seed,
		Settings: formatSettings(s.Settings), Base: values(&base),
		Points: []Point{}, Runs: []Run{},
	}
	for _, a := range s.Axes {
		a.Default = axisDefault(a, &base, p.Base)
		p.Vary = append(p.Vary, a)
	}
	combos := oneAtATime(p.Vary)
	if s.Grid {
		combos = grid(p.Vary)
	}
	if n := len(combos) * s.Repeat; n > maxRuns {
		return nil, fmt.Errorf("the plan has %d runs; more than %d is surely a mistake", n, maxRuns)
	}
	byConfig := map[string]int{}
	for _, c := range combos {
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
			maps.Copy(p.Points[i].Labels, c.labels)
			continue
		}
		byConfig[key] = len(p.Points)
		p.Points = append(p.Points, Point{
			Labels: c.labels, Settings: c.settings, Params: diff(p.Base, vals), Config: cfg,
		})
	}
	width := max(2, len(fmt.Sprint(len(p.Points))))
	for i := range p.Points {
		p.Points[i].ID = fmt.Sprintf("p%0*d", width, i+1)
	}
	for r := 1; r <= s.Repeat; r++ {
		for _, pt := range p.Points {
			p.Runs = append(p.Runs, Run{
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
func oneAtATime(axes []Axis) []combo {
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
func grid(axes []Axis) []combo {
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

// values returns the canonical keys of c without run.seed, which a plan
// leaves at 0 and sets per run.
func values(c *config.Config) map[string]string {
	v := config.Values(c)
	delete(v, "run.seed")
	return v
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

// unset marks a key a point's configuration does not have.
const unset = "(unset)"

func diff(base, v map[string]string) map[string]string {
	d := map[string]string{}
	for k, x := range v {
		if b, ok := base[k]; !ok || b != x {
			d[k] = x
		}
	}
	for k := range base {
		if _, ok := v[k]; !ok {
			d[k] = unset
		}
	}
	return d
}

// axisDefault names the base configuration's value of a plain axis (labels
// that are the keys' values), or "" when it has none: a preset's labelled
// axis, or keys whose expansion has different values in the base.
func axisDefault(a Axis, base *config.Config, vals map[string]string) string {
	keys := strings.Split(a.Key, "+")
	for i, v := range a.Values {
		if len(a.Settings[i]) != len(keys) {
			return ""
		}
		for j, k := range keys {
			if a.Settings[i][j] != k+"="+v {
				return ""
			}
		}
	}
	def := ""
	for i, k := range keys {
		d := keyDefault(k, base, vals)
		if d == "" || (i > 0 && d != def) {
			return ""
		}
		def = d
	}
	return def
}

func keyDefault(key string, base *config.Config, vals map[string]string) string {
	if v, ok := vals[key]; ok {
		return v
	}
	l1, l2 := base.Links[0], base.Links[1]
	switch key {
	case "flows.count":
		return fmt.Sprint(len(base.Flows))
	case "link.bw_ratio":
		if l1.Down.Rate == l2.Down.Rate && l1.Up.Rate == l2.Up.Rate {
			return "1:1"
		}
		return ""
	case "link.delay_ratio":
		if l1.Down.Delay == l2.Down.Delay && l1.Up.Delay == l2.Up.Delay {
			return "1:1"
		}
		return ""
	}
	// A shorter key (link.delay, link1.rate, flow.size) names the common
	// value of the canonical keys it sets.
	parts := strings.SplitN(key, ".", 2)
	if len(parts) != 2 {
		return ""
	}
	var expanded []string
	switch parts[0] {
	case "link":
		for _, l := range []string{"link1", "link2"} {
			for _, d := range []string{"down", "up"} {
				expanded = append(expanded, l+"."+d+"."+parts[1])
			}
		}
	case "link1", "link2":
		expanded = []string{parts[0] + ".down." + parts[1], parts[0] + ".up." + parts[1]}
	case "flow":
		for i := range base.Flows {
			expanded = append(expanded, fmt.Sprintf("flows.%d.%s", i, parts[1]))
		}
	}
	if len(expanded) == 0 {
		return ""
	}
	v, ok := vals[expanded[0]]
	if !ok {
		return ""
	}
	for _, k := range expanded[1:] {
		if vals[k] != v {
			return ""
		}
	}
	return v
}

// Point returns the point with the given id.
func (p *Plan) Point(id string) (*Point, bool) {
	for i := range p.Points {
		if p.Points[i].ID == id {
			return &p.Points[i], true
		}
	}
	return nil, false
}

// Label returns a point's value on an axis: its own label, else the axis's
// base value (one axis at a time), else "".
func (p *Plan) Label(pt *Point, axis Axis) string {
	if v, ok := pt.Labels[axis.Key]; ok {
		return v
	}
	return axis.Default
}

// Describe is a point's labels in axis order, "dc.batch=100 dc.split=1:1".
func (p *Plan) Describe(pt *Point) string {
	var parts []string
	for _, a := range p.Vary {
		if v, ok := pt.Labels[a.Key]; ok {
			parts = append(parts, a.Key+"="+v)
		}
	}
	if len(parts) == 0 {
		return "base"
	}
	return strings.Join(parts, " ")
}

// check validates a plan read from a file: ids are directory names and
// every run's point exists.
func (p *Plan) check() error {
	if p.Version != planVersion {
		return fmt.Errorf("version %d: this emu writes version %d", p.Version, planVersion)
	}
	ids := map[string]bool{}
	for i, pt := range p.Points {
		if !safeName(pt.ID) || ids[pt.ID] {
			return fmt.Errorf("points[%d]: id %q is not a unique directory name", i, pt.ID)
		}
		ids[pt.ID] = true
	}
	runs := map[string]bool{}
	for i, r := range p.Runs {
		if !safeName(r.ID) || runs[r.ID] {
			return fmt.Errorf("runs[%d]: id %q is not a unique directory name", i, r.ID)
		}
		runs[r.ID] = true
		if !ids[r.Point] {
			return fmt.Errorf("runs[%d] (%s): point %q is not in points", i, r.ID, r.Point)
		}
	}
	if len(p.Runs) == 0 {
		return errors.New("no runs")
	}
	return nil
}

func safeName(s string) bool {
	if s == "" || s == "." || s == ".." || len(s) > 100 {
		return false
	}
	return !strings.ContainsAny(s, "/\\\x00")
}
