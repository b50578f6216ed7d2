// Package study is emu's catalog of studies: the sweep engine
// (emu/sweep) knows no study by name, and the commands that list, run
// and read presets (emu sweep, emu sweep merge, emu reproduce) take the
// studies from All. Each study is a package of its own under emu/study;
// adding one is a package with a Study function and a line here
// (docs/design.md, "Adding a study").
package study

import (
	"github.com/dc-emu/emu/emu/study/cc"
	"github.com/dc-emu/emu/emu/study/flowcontrol"
	"github.com/dc-emu/emu/emu/study/latency"
	"github.com/dc-emu/emu/emu/study/multipath"
	"github.com/dc-emu/emu/emu/study/paper"
	"github.com/dc-emu/emu/emu/study/satellite"
	"github.com/dc-emu/emu/emu/sweep"
)

// All is every study, in the order --list-presets prints them: the
// paper's, then those beyond it.
func All() sweep.Catalog {
	return sweep.Catalog{
		paper.Study(),
		latency.Study(),
		satellite.Study(),
		cc.Study(),
		multipath.Study(),
		flowcontrol.Study(),
	}
}
