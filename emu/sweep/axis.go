package sweep

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/results"
)

// Value is one labelled value of an axis built by Labeled.
type Value struct {
	Label string
	Set   []string // key=value settings
}

// Labeled builds an axis whose values stand for other settings, e.g. an RTT
// that sets each one-way delay to half of it.
func Labeled(key string, values ...Value) results.Axis {
	a := results.Axis{Key: key}
	for _, v := range values {
		a.Values = append(a.Values, v.Label)
		a.Settings = append(a.Settings, slices.Clone(v.Set))
	}
	return a
}

// ParseVary parses the --vary syntax KEY=V1,V2,… or KEY1+KEY2=V1,V2,… (every
// key takes each value in turn). Values cannot contain commas.
func ParseVary(s string) (results.Axis, error) {
	keyPart, valPart, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(keyPart) == "" {
		return results.Axis{}, fmt.Errorf("--vary %q: want KEY=V1,V2,… (or KEY1+KEY2=V1,V2,… to give several keys the same value)", s)
	}
	var keys []string
	for k := range strings.SplitSeq(keyPart, "+") {
		k = strings.TrimSpace(k)
		if k == "" || strings.ContainsAny(k, " \t,=") {
			return results.Axis{}, fmt.Errorf("--vary %q: %q is not a key", s, k)
		}
		if err := varyable(k); err != nil {
			return results.Axis{}, fmt.Errorf("--vary %s: %w", keyPart, err)
		}
		if slices.Contains(keys, k) {
			return results.Axis{}, fmt.Errorf("--vary %q: key %s appears twice", s, k)
		}
		keys = append(keys, k)
	}
	a := results.Axis{Key: strings.Join(keys, "+")}
	for v := range strings.SplitSeq(valPart, ",") {
		v = strings.TrimSpace(v)
		if v == "" {
			return results.Axis{}, fmt.Errorf("--vary %s: empty value in %q", a.Key, valPart)
		}
		if slices.Contains(a.Values, v) {
			return results.Axis{}, fmt.Errorf("--vary %s: value %s appears twice", a.Key, v)
		}
		set := make([]string, len(keys))
		for i, k := range keys {
			set[i] = k + "=" + v
		}
		a.Values = append(a.Values, v)
		a.Settings = append(a.Settings, set)
	}
	return a, nil
}

// varyable rejects keys a sweep owns itself.
func varyable(key string) error {
	if key == "run.seed" {
		return fmt.Errorf("run.seed: a sweep derives every run's seed from --seed; vary --repeat instead")
	}
	return nil
}

// check validates an axis built in code or read from a plan: a key, at least
// one value, one settings list per value, no duplicate labels, well-formed
// settings.
func checkAxis(a results.Axis) error {
	if a.Key == "" {
		return fmt.Errorf("an axis has no key")
	}
	if len(a.Values) == 0 {
		return fmt.Errorf("--vary %s: no values", a.Key)
	}
	if len(a.Settings) != len(a.Values) {
		return fmt.Errorf("--vary %s: %d values but %d settings lists", a.Key, len(a.Values), len(a.Settings))
	}
	for i, v := range a.Values {
		if v == "" || slices.Index(a.Values, v) != i {
			return fmt.Errorf("--vary %s: value %q is empty or appears twice", a.Key, v)
		}
		if len(a.Settings[i]) == 0 {
			return fmt.Errorf("--vary %s=%s: sets nothing", a.Key, v)
		}
		for _, s := range a.Settings[i] {
			st, err := config.ParseSetting(s)
			if err != nil {
				return fmt.Errorf("--vary %s=%s: %w", a.Key, v, err)
			}
			if err := varyable(st.Key); err != nil {
				return err
			}
		}
	}
	return nil
}

// parseSettings turns "key=value" strings into settings.
func parseSettings(ss []string) ([]config.Setting, error) {
	out := make([]config.Setting, 0, len(ss))
	for _, s := range ss {
		st, err := config.ParseSetting(s)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

// formatSettings is the inverse of parseSettings.
func formatSettings(ss []config.Setting) []string {
	out := make([]string, 0, len(ss))
	for _, s := range ss {
		out = append(out, s.Key+"="+s.Value)
	}
	return out
}
