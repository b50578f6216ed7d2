package reproduce

import (
	"fmt"
	"path"
	"strings"
)

// Only limits the presets that Execute runs to those named by patterns,
// each a preset name or a path.Match pattern ("delay-ratio-*"); a pattern
// that begins with "!" leaves out what it matches ("!*-fairness"). Without
// an including pattern every preset is included before the exclusions.
// The presets left out stay in the plan, held: the report still judges
// what earlier sessions left of them, and the estimates count them as not
// to do now. This is how a reproduction that takes several nights runs
// the figures one cares about first (the short throughput presets, say)
// without a second directory. A malformed pattern, or one that matches no
// preset of the plan, is an error naming it; so is a selection of none.
func (p *Plan) Only(patterns []string) error {
	if len(patterns) == 0 {
		return nil
	}
	include := make([]bool, len(p.Sweeps))
	anyInclude := false
	for _, pat := range patterns {
		if !strings.HasPrefix(pat, "!") {
			anyInclude = true
		}
	}
	for i := range include {
		include[i] = !anyInclude
	}
	for _, pat := range patterns {
		exclude := strings.HasPrefix(pat, "!")
		glob := strings.TrimPrefix(pat, "!")
		matched := false
		for i, s := range p.Sweeps {
			ok, err := path.Match(glob, s.Preset.Name)
			if err != nil {
				return fmt.Errorf("reproduce: preset pattern %q: %w", pat, err)
			}
			if ok {
				matched = true
				include[i] = !exclude
			}
		}
		if !matched {
			return fmt.Errorf("reproduce: preset pattern %q matches no preset of parts %s", pat, strings.Join(p.Parts, ","))
		}
	}
	n := 0
	for i := range p.Sweeps {
		p.Sweeps[i].Held = !include[i]
		if include[i] {
			n++
		}
	}
	if n == 0 {
		return fmt.Errorf("reproduce: presets %s leave none to run", strings.Join(patterns, ","))
	}
	return nil
}
