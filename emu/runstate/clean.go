package runstate

import "strings"

// CleanReport says what Clean removed.
type CleanReport struct {
	Runs       []string // run ids whose leftovers were removed
	Namespaces []string // namespaces deleted
	Scratch    []string // scratch directories removed
	Skipped    []string // emu-looking namespaces left alone, and why
}

// runIDOf extracts the run id from a namespace name emu-<id>-<node>.
func runIDOf(ns string) (string, bool) {
	rest, ok := strings.CutPrefix(ns, "emu-")
	if !ok {
		return "", false
	}
	id, node, ok := strings.Cut(rest, "-")
	return id, ok && id != "" && node != ""
}
