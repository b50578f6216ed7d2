package emu

import (
	"errors"
	"fmt"

	"github.com/dc-emu/emu/emu/internal/rtsched"
	"github.com/dc-emu/emu/emu/linkstats"
	"github.com/dc-emu/emu/emu/results"
)

// writeResults writes summary.json, timeseries.csv (from rec and the
// links' queueing delays) and counters.json, and hands the run directory,
// with what the endpoints wrote into it, to the user who ran emu through
// sudo.
func (r *runner) writeResults(s *results.Summary, rec *record, queue []linkstats.QueueDelay) error {
	var errs []error
	dir := results.RunDir(r.o.Out)
	if err := dir.WriteSummary(s); err != nil {
		errs = append(errs, err)
	}
	if t, err := seriesTable(rec, queue); err != nil {
		errs = append(errs, fmt.Errorf("timeseries: %w", err))
	} else if t != nil {
		if err := dir.WriteTimeseries(t); err != nil {
			errs = append(errs, fmt.Errorf("timeseries: %w", err))
		}
	}
	counters := results.Counters{PDCP: r.em.PDCP(), Links: r.em.LinkCounters(), Sampler: r.samplerCounters(), PEP: r.em.PEP()}
	if len(counters.PDCP) == 0 {
		counters.PDCP = nil // written as null, as before
	}
	counters.Captures = r.captureMap()
	for _, c := range rtsched.Collections(r.em.Epoch) {
		counters.GC = append(counters.GC, results.GCCollection{TS: results.Round3(c.Start.Sub(r.em.Epoch).Seconds()),
			TookMs: results.Round3(float64(c.Took) / 1e6), Demoted: c.Demoted})
	}
	if err := dir.WriteCounters(&counters); err != nil {
		errs = append(errs, err)
	}
	if err := results.HandOver(r.o.Out); err != nil {
		errs = append(errs, fmt.Errorf("hand the run directory to its user: %w", err))
	}
	return errors.Join(errs...)
}
