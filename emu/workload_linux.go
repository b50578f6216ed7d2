package emu

import (
	"fmt"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/workload"
	"github.com/dc-emu/emu/internal/invoker"
)

// Flow kinds in a run: what each kind's server and client are told, where
// their per-flow logs go, and what the summary gets from them.

// kindLog is flow f's per-kind log in the run directory: flows/<flow>.rr.csv,
// .cbr.csv or .objects.csv; "" for a bulk flow.
func kindLog(out string, f config.Flow) string {
	if f.Kind == config.KindBulk {
		return ""
	}
	return results.RunDir(out).File(results.KindLogFile(f.Name, f.Kind))
}

// checkWorkloads reads what the flows need from files before anything is
// built: a CSV of object sizes, whose errors name the file and line.
func checkWorkloads(cfg config.Config) error {
	for i, f := range cfg.Flows {
		if f.Kind != config.KindObjects {
			continue
		}
		spec := f.Objects
		if spec.Dist != workload.DistCSV {
			continue
		}
		data, err := invoker.ReadFile(spec.File) // the user's file, with the user's permissions
		if err == nil {
			_, err = workload.ParseSizesCSV(spec.File, data)
		}
		if err != nil {
			return fmt.Errorf("flows.%d.objects: %w", i, err)
		}
	}
	return nil
}
