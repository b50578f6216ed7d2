package sweep

import (
	"fmt"
	"time"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/results"
)

// The disk model's figures, measured on run directories of the 2-core
// development VM (docs/sweeps.md, "Disk").
const (
	// RunFilesBytes is a run directory without its qlogs and receive
	// logs: config, summary, counters, time series, TLS keys, endpoint
	// logs (100–250 kB measured).
	RunFilesBytes = 250 << 10
	// QlogBytesPerByte is how many bytes of qlog (both sides) a QUIC flow
	// writes per byte of payload: quic-go 0.67 and ngtcp2 0.65 on the
	// 2 MB samples, ngtcp2 0.735 for a 20 MB download and 0.72 for a
	// 60 s fairness run over DC.
	QlogBytesPerByte = 0.75
	// QlogGzipRatio is how much --qlogs gzip shrinks them: 17.4 for an
	// ngtcp2 server's qlog of a 20 MB download, 19.8 for the six qlogs of
	// a 60 s ngtcp2 fairness run.
	QlogGzipRatio = 17
	// RecvLogBytesPerByte is a flow's receive log (flows/<flow>.csv, a
	// row per read) per byte of payload: 2 MB for 100 MB.
	RecvLogBytesPerByte = 0.02
)

// EstimateDisk returns the bytes runs of plan p are expected to leave on
// disk with their qlogs handled as q: EstimateRunDisk of each run's point.
func EstimateDisk(p *results.Plan, runs []results.Run, q results.QlogPolicy) float64 {
	per := map[string]float64{}
	total := 0.0
	for _, r := range runs {
		b, ok := per[r.Point]
		if !ok {
			b = RunFilesBytes
			if cfg, err := PointConfig(p, r.Point); err == nil {
				b = EstimateRunDisk(cfg, q)
			}
			per[r.Point] = b
		}
		total += b
	}
	return total
}

// EstimateRunDisk returns the bytes one run of cfg is expected to leave on
// disk: RunFilesBytes, the flows' receive logs and their qlogs
// (QlogBytesPerByte of a QUIC flow's payload, over QlogGzipRatio for
// gzip, none for drop). A flow's payload is its size, or for flows of
// fixed duration their share of FlowEfficiency of the rate of the paths
// they use together in their direction; request/response, cbr and object
// flows, whose payload is small or drawn, count nothing.
func EstimateRunDisk(cfg config.Config, q results.QlogPolicy) float64 {
	var payload, quic float64
	var timed [2]struct {
		used      map[string]bool
		n, nQUIC  int
		start, to time.Duration
	}
	for _, f := range cfg.Flows {
		isQUIC := f.Proto == "quic"
		d := 0
		if f.Direction == config.DirUp {
			d = 1
		}
		switch {
		case f.Duration > 0 && (f.Kind == "" || f.Kind == config.KindBulk):
			g := &timed[d]
			if g.used == nil {
				g.used, g.start = map[string]bool{}, f.Start
			}
			g.used[f.Path] = true
			g.n++
			if isQUIC {
				g.nQUIC++
			}
			g.start, g.to = min(g.start, f.Start), max(g.to, f.Start+f.Duration)
		case f.Size > 0 && (f.Kind == "" || f.Kind == config.KindBulk):
			payload += float64(f.Size)
			if isQUIC {
				quic += float64(f.Size)
			}
		}
	}
	for d, g := range timed {
		if g.n == 0 {
			continue
		}
		b := pathsRate(cfg, linkRates(cfg, d == 1), g.used) * FlowEfficiency / 8 * (g.to - g.start).Seconds()
		payload += b
		quic += b * float64(g.nQUIC) / float64(g.n)
	}
	bytes := RunFilesBytes + RecvLogBytesPerByte*payload
	switch q {
	case results.QlogsKeep:
		bytes += QlogBytesPerByte * quic
	case results.QlogsDrop:
	default:
		bytes += QlogBytesPerByte * quic / QlogGzipRatio
	}
	return bytes
}

// DiskText says in a line what est, an estimate by qlog policy (of
// EstimateDisk), expects on disk with each policy, q's first, and how
// much is free (free < 0: unknown).
func DiskText(est func(results.QlogPolicy) float64, q results.QlogPolicy, free int64) string {
	if q == "" {
		q = results.QlogsGzip
	}
	s := fmt.Sprintf("expected disk use: %s with --qlogs %s", FormatBytes(est(q)), q)
	var others []string
	for _, o := range []results.QlogPolicy{results.QlogsGzip, results.QlogsKeep, results.QlogsDrop} {
		if o != q {
			others = append(others, fmt.Sprintf("%s %s", o, FormatBytes(est(o))))
		}
	}
	s += fmt.Sprintf(" (%s, %s)", others[0], others[1])
	if free >= 0 {
		s += fmt.Sprintf("; %s free", FormatBytes(float64(free)))
		if est(q) > float64(free) {
			s += ": not enough, the sweep will stop when less than " + FormatBytes(DefaultMinFree) + " is left"
		}
	}
	return s
}

// FormatBytes writes a size in decimal units to two or three significant
// digits: "850 kB", "12 MB", "1.6 TB".
func FormatBytes(b float64) string {
	units := []string{"B", "kB", "MB", "GB", "TB"}
	i := 0
	for b >= 999.5 && i < len(units)-1 {
		b /= 1000
		i++
	}
	if b < 9.95 && i > 0 {
		return fmt.Sprintf("%.1f %s", b, units[i])
	}
	return fmt.Sprintf("%.0f %s", b, units[i])
}
