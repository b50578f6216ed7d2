package config

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dc-emu/emu/emu/workload"
)

// kindKeys are the per-flow keys that only some kinds of flow read, with
// those kinds. A flow of another kind would ignore the key, so a setting of
// one is refused (checkKindKeys) rather than dropped.
var kindKeys = map[string][]string{
	"size":     {KindBulk},
	"request":  {KindRR},
	"response": {KindRR},
	"interval": {KindRR, KindCBR},
	"count":    {KindRR, KindCBR, KindObjects},
	"packet":   {KindCBR},
	"rate":     {KindCBR},
	"objects":  {KindObjects},
	"arrivals": {KindObjects},
	"reuse":    {KindRR, KindObjects},
}

// checkKindKeys refuses the settings of kind-specific keys (kindKeys) that
// no flow they reach would read, once every setting is applied: a flows.N
// key whose flow is of another kind, or a flow.* key that no flow reads,
// unless the value is the default. One pairing is not an ignored setting
// but the same thing said twice, and passes: a bulk flow's size and an
// objects flow's single object of that size (a sweep may switch a flow
// between the two kinds).
func checkKindKeys(c *Config, settings []Setting) error {
	var def *Flow // the scenario's default flow, made when first needed
	for _, s := range settings {
		field, ok := kindField(s.Key)
		if !ok {
			continue
		}
		kinds := kindKeys[field]
		var unread []int
		keys := Expand(c, s.Key)
		for _, k := range keys {
			i, err := strconv.Atoi(strings.Split(k, ".")[1])
			if err != nil || i >= len(c.Flows) {
				continue
			}
			f := c.Flows[i]
			if slices.Contains(kinds, f.Kind) || sameTransfer(f, field) {
				continue
			}
			if def == nil {
				d, err := DefaultConfig(c.Scenario) // every scenario has a flow
				if err != nil {
					return err
				}
				def = &d.Flows[0]
			}
			if changed(f, *def, field) {
				unread = append(unread, i)
			}
		}
		if len(unread) == 0 || len(unread) < len(keys) {
			continue // some flow reads it
		}
		f := c.Flows[unread[0]]
		what := fmt.Sprintf("flow %d is %s", unread[0], article(f.Kind))
		if len(unread) > 1 {
			what = "no flow is one"
		}
		return &KeyError{Key: s.Key, Value: s.Value, Err: fmt.Errorf("applies to %s flows, and %s: the setting would be ignored%s",
			strings.Join(kinds, ", "), what, kindHint(field, f.Kind))}
	}
	return nil
}

// changed reports whether flow f's field differs from the scenario's
// default flow def's: a setting that leaves the default (as a run's
// recorded values do when applied again) sets nothing to ignore.
func changed(f, def Flow, field string) bool {
	for _, ff := range slices.Concat(flowFields, workloadFields) {
		if ff.name == field {
			return ff.get(&f) != ff.get(&def)
		}
	}
	return true
}

// kindField is the field a flow.* or flows.N.* key sets when it is one of
// kindKeys.
func kindField(key string) (string, bool) {
	parts := strings.Split(key, ".")
	var field string
	switch {
	case len(parts) == 2 && parts[0] == "flow":
		field = parts[1]
	case len(parts) == 3 && parts[0] == "flows":
		field = parts[2]
	default:
		return "", false
	}
	_, ok := kindKeys[field]
	return field, ok
}

// sameTransfer reports whether a bulk flow's objects, or an objects flow's
// size, says what the flow's own key already says: one object of the
// flow's size.
func sameTransfer(f Flow, field string) bool {
	switch {
	case field == "objects" && f.Kind == KindBulk, field == "size" && f.Kind == KindObjects:
		one := singleObject(f.Objects)
		return one > 0 && one == f.Size
	}
	return false
}

// singleObject is the size of a spec of one object size; 0 otherwise.
func singleObject(o workload.ObjectSpec) int64 {
	switch {
	case o.Dist == workload.DistFixed:
		return o.Size
	case o.Dist == workload.DistList && len(o.Sizes) == 1:
		return o.Sizes[0]
	}
	return 0
}

// kindHint says where a flow of the kind takes what the key would give.
func kindHint(field, kind string) string {
	switch {
	case field == "size" && kind == KindObjects:
		return " (an objects flow's sizes are its objects key, e.g. objects=10MB)"
	case field == "objects" && kind == KindBulk:
		return " (a bulk flow moves size bytes; set kind=objects for objects)"
	}
	return ""
}

func article(kind string) string {
	if kind == KindObjects || kind == KindRR {
		return "an " + kind + " flow"
	}
	return "a " + kind + " flow"
}
