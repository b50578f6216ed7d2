package sweep

import "github.com/dc-emu/emu/emu/results"

// Completed reports whether dir holds run r of plan p with status ok, its
// seed and its point's configuration: a run Execute would skip.
func Completed(dir string, p *results.Plan, r results.Run) bool { return completed(dir, p, r) }
