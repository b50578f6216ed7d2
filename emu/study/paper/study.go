package paper

import (
	"slices"

	"github.com/dc-emu/emu/emu/sweep"
)

// Study is the paper's presets as a study of the sweep engine: its
// figures are the engine's generic ones (a line per stack along each
// axis), and its findings are judged by emu/findings.
func Study() sweep.Study { return sweep.PresetsOnly(slices.Clone(presets)) }
