package findings

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Finding is one row of the paper's findings: what the paper found, with
// its numbers, and the rule that judges emu's results against it.
type Finding struct {
	ID      string // anchor and key in reproduce.json: "fig4a"
	Figures string // the paper's figures: "Fig. 4a", "Figs. 8b, 8c", "App. A"
	Title   string // the experiment
	Paper   string // the paper's finding, paraphrased, with its numbers
	// Shape checks judge what the paper says without numbers (a peak, an
	// order, a trend); Magnitude checks compare with its numbers. No
	// magnitude checks: the paper gives no number, only the shape is
	// judged.
	Shape     []Check
	Magnitude []Check
	// Unjudged says which parts of the paper's finding no check covers,
	// and how emu reads words the paper gives no number for.
	Unjudged string
	// Extra lists presets shown beside the finding besides those its
	// checks read (a reference finding has no checks).
	Extra []string
}

// Presets lists the presets the finding reads or shows, in first-use order.
func (f Finding) Presets() []string {
	var out []string
	for _, u := range f.uses() {
		if !slices.Contains(out, u.preset()) {
			out = append(out, u.preset())
		}
	}
	for _, p := range f.Extra {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// Metrics lists the metrics the finding's checks read.
func (f Finding) Metrics() []string {
	var out []string
	for _, u := range f.uses() {
		if !slices.Contains(out, u.metric) {
			out = append(out, u.metric)
		}
	}
	return out
}

// Rule is the finding's whole rule in words.
func (f Finding) Rule() string {
	var b strings.Builder
	list := func(cs []Check) {
		for i, c := range cs {
			if i > 0 {
				b.WriteString("; ")
			}
			b.WriteString(c.Rule())
		}
		b.WriteString(". ")
	}
	switch {
	case len(f.Shape) == 0 && len(f.Magnitude) == 0:
		b.WriteString("Not judged: a reference. ")
	default:
		if len(f.Shape) > 0 {
			b.WriteString("Shape: ")
			list(f.Shape)
		}
		if len(f.Magnitude) > 0 {
			b.WriteString("Magnitude: ")
			list(f.Magnitude)
		} else {
			b.WriteString("The paper gives no number here: only the shape is judged. ")
		}
	}
	if f.Unjudged != "" {
		b.WriteString(f.Unjudged)
	}
	return strings.TrimSpace(b.String())
}

// axes returns, per preset, the axes the checks read: a line's axis, or
// the labels naming a point, the stack axis only when nothing else is.
func (f Finding) axes() map[string][]string {
	out := map[string][]string{}
	add := func(p, a string) {
		if !slices.Contains(out[p], a) {
			out[p] = append(out[p], a)
		}
	}
	for _, u := range f.uses() {
		if u.line != nil {
			add(u.line.Preset, u.line.Axis)
			continue
		}
		keys := slices.Sorted(maps.Keys(u.at.Labels))
		if len(keys) > 1 {
			keys = slices.DeleteFunc(keys, func(k string) bool { return k == LineAxis })
		}
		for _, k := range keys {
			add(u.at.Preset, k)
		}
	}
	return out
}

func (f Finding) uses() []use {
	var out []use
	for _, c := range slices.Concat(f.Shape, f.Magnitude) {
		out = append(out, c.uses()...)
	}
	return out
}

// Result is one finding evaluated.
type Result struct {
	ID      string   `json:"id"`
	Figures string   `json:"figures"`
	Title   string   `json:"title"`
	Paper   string   `json:"paper"`
	Presets []string `json:"presets"`
	Metrics []string `json:"metrics"`
	// Axes are, per preset, the axes the checks read along or at: the
	// report shows the preset's figures along them.
	Axes     map[string][]string `json:"axes"`
	Rule     string              `json:"rule"`
	Unjudged string              `json:"unjudged,omitempty"`
	Verdict  Verdict             `json:"verdict"`
	Reason   string              `json:"reason"`
	Checks   []CheckResult       `json:"checks"`
}

// Evaluate judges every finding against the results.
func Evaluate(fs []Finding, r Results) []Result {
	out := make([]Result, 0, len(fs))
	for _, f := range fs {
		res := Result{
			ID: f.ID, Figures: f.Figures, Title: f.Title, Paper: f.Paper,
			Presets: f.Presets(), Metrics: f.Metrics(), Axes: f.axes(), Rule: f.Rule(), Unjudged: f.Unjudged,
			Checks: []CheckResult{},
		}
		for _, part := range []struct {
			p  Part
			cs []Check
		}{{Shape, f.Shape}, {Magnitude, f.Magnitude}} {
			for _, c := range part.cs {
				cr := c.eval(r)
				cr.Part = part.p
				res.Checks = append(res.Checks, cr)
			}
		}
		res.Verdict, res.Reason = combine(res.Checks)
		out = append(out, res)
	}
	return out
}

// Validate checks that every point and line the findings name exists
// exactly once in r, ignoring metrics: run it on results built from the
// presets' plans (labels only) to catch a rule that can never be judged.
// Presets missing from r are errors too.
func Validate(fs []Finding, r Results) error {
	var errs []error
	ids := map[string]bool{}
	for _, f := range fs {
		if f.ID == "" || ids[f.ID] {
			errs = append(errs, fmt.Errorf("finding %q: empty or repeated id", f.ID))
		}
		ids[f.ID] = true
		for _, p := range f.Presets() {
			if r[p] == nil {
				errs = append(errs, fmt.Errorf("finding %s: no preset %s", f.ID, p))
			}
		}
		for _, u := range f.uses() {
			if r[u.preset()] == nil {
				continue
			}
			if err := r.resolves(u); err != nil {
				errs = append(errs, fmt.Errorf("finding %s: %w", f.ID, err))
			}
		}
	}
	return errors.Join(errs...)
}

// resolves checks that a use names exactly one point per value.
func (r Results) resolves(u use) error {
	if u.at != nil {
		_, err := r.point(*u.at)
		return err
	}
	vals, err := r.values(*u.line)
	if err != nil {
		return err
	}
	for _, v := range vals {
		if _, err := r.point(Series{Line: *u.line}.At(v).At); err != nil {
			return err
		}
	}
	return nil
}
