package config

import (
	"fmt"
	"strings"
)

// The key grammar: how a key names the canonical parameters it sets. It is
// written once, here; setting a key (Apply), naming a key's value
// (Lookup) and the sweeps' axis defaults all go through it.
//
//	link.X        link1.X and link2.X (each expanded again)
//	linkN.X       linkN.down.X and linkN.up.X, except linkN.trace
//	flow.X        flows.i.X for every flow
//	anything else itself (a canonical key, or unknown)
//
// Derived keys (link.bw_ratio, link.delay_ratio, flows.count) set several
// parameters from one value and are not expanded.

// Expand returns the canonical keys that key sets in c, or key itself when
// it is canonical (or unknown, or derived).
func Expand(c *Config, key string) []string {
	parts := strings.SplitN(key, ".", 2)
	if len(parts) != 2 || isDerived(key) {
		return []string{key}
	}
	head, rest := parts[0], parts[1]
	switch {
	case head == "link":
		var out []string
		for i := range c.Links {
			out = append(out, Expand(c, fmt.Sprintf("link%d.%s", i+1, rest))...)
		}
		return out
	case (head == "link1" || head == "link2") && !strings.Contains(rest, ".") && rest != "trace":
		return []string{head + ".down." + rest, head + ".up." + rest}
	case head == "flow" && !strings.Contains(rest, "."):
		out := make([]string, 0, len(c.Flows))
		for i := range c.Flows {
			out = append(out, fmt.Sprintf("flows.%d.%s", i, rest))
		}
		return out
	}
	return []string{key}
}

func isDerived(key string) bool {
	for _, d := range derivedDocs {
		if d.key == key {
			return true
		}
	}
	return false
}

// Lookup names the value key has in c: a canonical key's value, the common
// value of the keys a shorthand sets (none when they differ), and for the
// derived keys the value that describes c when there is one (flows.count;
// link.bw_ratio and link.delay_ratio are 1:1 when both links are equal).
func Lookup(c *Config, key string) (string, bool) {
	vals := Values(c)
	if v, ok := vals[key]; ok {
		return v, true
	}
	l1, l2 := c.Links[0], c.Links[1]
	switch key {
	case "flows.count":
		return fmt.Sprint(len(c.Flows)), true
	case "link.bw_ratio":
		return "1:1", l1.Down.Rate == l2.Down.Rate && l1.Up.Rate == l2.Up.Rate
	case "link.delay_ratio":
		return "1:1", l1.Down.Delay == l2.Down.Delay && l1.Up.Delay == l2.Up.Delay
	}
	keys := Expand(c, key)
	if len(keys) == 0 || len(keys) == 1 && keys[0] == key {
		return "", false
	}
	v, ok := vals[keys[0]]
	if !ok {
		return "", false
	}
	for _, k := range keys[1:] {
		if vals[k] != v {
			return "", false
		}
	}
	return v, true
}
