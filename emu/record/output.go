package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dc-emu/emu/tracefmt"
)

// Files names what WriteFiles wrote for one path.
type Files struct {
	Prefix   string          `json:"prefix"` // PREFIX, or PREFIX-1 and PREFIX-2 for two paths
	Trace    *tracefmt.Trace `json:"-"`
	Warnings []string        `json:"warnings,omitempty"`
}

// PathPrefix is the prefix of path i's files (0-based) among n paths.
func PathPrefix(prefix string, i, n int) string {
	if n == 1 {
		return prefix
	}
	return fmt.Sprintf("%s-%d", prefix, i+1)
}

// The suffixes of a path's files.
const (
	SuffixDown       = ".down"  // Mahimahi, downlink
	SuffixUp         = ".up"    // Mahimahi, uplink
	SuffixDelay      = ".delay" // the downlink's one-way delay, ms per Step
	SuffixLoss       = ".loss"  // the downlink's loss, per Step
	SuffixCSV        = ".csv"   // emu's plain CSV, every column
	SuffixProbes     = ".probes.csv"
	SuffixProvenance = ".provenance.txt" // where, when and how; one for the recording
	SuffixJSON       = ".json"           // the raw bins and settings; one for the recording
)

// WriteFiles derives each path's trace and writes every file of the
// recording under prefix. It writes all of them or none: a derivation
// that fails leaves nothing behind.
func WriteFiles(rec *Recording, prefix string, argv []string) ([]Files, error) {
	var out []Files
	files := map[string][]byte{}
	for i, p := range rec.Paths {
		pre := PathPrefix(prefix, i, len(rec.Paths))
		t, warn, err := Derive(p, filepath.Base(pre)+SuffixCSV)
		if err != nil {
			return nil, fmt.Errorf("record: path %d%s: %w", i+1, viaText(p.Via), err)
		}
		for _, w := range []struct {
			suffix string
			write  func(*bytes.Buffer) error
		}{
			{SuffixDown, func(b *bytes.Buffer) error { return tracefmt.WriteMahimahi(b, t, false) }},
			{SuffixUp, func(b *bytes.Buffer) error { return tracefmt.WriteMahimahi(b, t, true) }},
			{SuffixDelay, func(b *bytes.Buffer) error { return tracefmt.WriteSeries(b, t, tracefmt.FormatDelay, false, Step) }},
			{SuffixLoss, func(b *bytes.Buffer) error { return tracefmt.WriteSeries(b, t, tracefmt.FormatLoss, false, Step) }},
			{SuffixCSV, func(b *bytes.Buffer) error { return tracefmt.WriteCSV(b, t) }},
			{SuffixProbes, func(b *bytes.Buffer) error { return writeProbes(b, p) }},
		} {
			var b bytes.Buffer
			if err := w.write(&b); err != nil {
				return nil, fmt.Errorf("record: %s%s: %w", pre, w.suffix, err)
			}
			files[pre+w.suffix] = b.Bytes()
		}
		out = append(out, Files{Prefix: pre, Trace: t, Warnings: warn})
	}
	files[prefix+SuffixProvenance] = []byte(provenance(rec, out, argv))
	j, err := json.MarshalIndent(struct {
		*Recording
		Warnings [][]string `json:"warnings"`
	}{rec, warnings(out)}, "", " ")
	if err != nil {
		return nil, err
	}
	files[prefix+SuffixJSON] = append(j, '\n')
	var written []string
	for name, b := range files {
		if err := writeAtomic(name, b); err != nil {
			for _, w := range written {
				os.Remove(w)
			}
			return nil, fmt.Errorf("record: %w", err)
		}
		written = append(written, name)
	}
	return out, nil
}

func warnings(fs []Files) [][]string {
	var out [][]string
	for _, f := range fs {
		out = append(out, f.Warnings)
	}
	return out
}

// writeAtomic writes b to name through a temporary file beside it.
func writeAtomic(name string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}

// writeProbes writes the light probes' series: each direction's least
// probe delay and probes lost per step, the delay a light load sees
// beside the saturating stream (CellReplay's light-load trace, recorded
// on the same path at the same time).
func writeProbes(b *bytes.Buffer, p Path) error {
	b.WriteString("time_s,down_probe_ms,up_probe_ms,down_probes_lost,up_probes_lost\n")
	n := min(len(p.Down.Bins), len(p.Up.Bins))
	ms := func(owd, offset int64) string {
		if owd == noDelay {
			return ""
		}
		return fmt.Sprintf("%.3f", float64(max(owd+offset, 0))/1e6)
	}
	for i := range n {
		d, u := p.Down.Bins[i], p.Up.Bins[i]
		fmt.Fprintf(b, "%.2f,%s,%s,%d,%d\n", (time.Duration(i) * Step).Seconds(),
			ms(d.ProbeOWD, p.Offset), ms(u.ProbeOWD, -p.Offset), max(d.ProbesLost, 0), max(u.ProbesLost, 0))
	}
	return nil
}

// provenance is the recording's PROVENANCE-style page: where, when and
// how, the tool's settings, what each file holds, the warnings.
func provenance(rec *Recording, fs []Files, argv []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Recorded with emu record\n\n")
	if rec.Interrupted {
		fmt.Fprintf(&b, "**INTERRUPTED**: recording stopped after %.1f s of the %.1f s asked for; the files hold what was recorded.\n\n", rec.Recorded.Seconds(), rec.Planned.Seconds())
	}
	host, _ := os.Hostname()
	fmt.Fprintf(&b, "- command: `%s`\n", strings.Join(argv, " "))
	fmt.Fprintf(&b, "- near end: %s; far end: %s\n", host, rec.To)
	fmt.Fprintf(&b, "- started: %s (the first step; the streams ran %v before it)\n", rec.Started.UTC().Format(time.RFC3339Nano), Warmup)
	fmt.Fprintf(&b, "- recorded: %.2f s in %v steps; load packets of %d IP bytes, at most %.0f Mbit/s a direction; a probe every %v\n",
		rec.Recorded.Seconds(), Step, rec.Packet, rec.MaxRate/1e6, ProbeEvery)
	fmt.Fprintf(&b, "- method (docs/record.md): each end paces UDP at %.2f× what the other end reports delivered, so a queue stands at the bottleneck, and pauses every %v for as long as it reckons the queue is; capacity is the link's pace while the queue stood (bytes of packets that waited over the gaps between their arrivals, losses after the bottleneck included, tail drops not); one-way delay is that of the nearest packet that found the queue empty after a pause; loss is the stream's lost share over a sliding second\n",
		steadyGain, cycle)
	for i, p := range rec.Paths {
		f := fs[i]
		fmt.Fprintf(&b, "\n## Path %d: %s\n\n", i+1, f.Prefix)
		fmt.Fprintf(&b, "- near end %s%s, far end %s (%s)\n", p.Local, viaText(p.Via), p.Far, p.FarHost)
		if p.SameHost {
			fmt.Fprintf(&b, "- clocks: one host (same kernel boot id), one-way delays exact\n")
		} else {
			fmt.Fprintf(&b, "- clocks: far end %+.3f ms from the near end, estimated at the least round trip %.3f ms (Cristian's method): each one-way delay within ±%.3f ms\n",
				float64(p.Offset)/1e6, float64(p.MinRTT)/1e6, float64(p.OffsetUncertainty)/1e6)
		}
		st := f.Trace.Stats()
		fmt.Fprintf(&b, "- downlink: mean %.2f Mbit/s, one-way delay median %.2f ms, loss %.2f %%; uplink: mean %.2f Mbit/s, delay median %.2f ms, loss %.2f %%\n",
			st.Down.Mean, st.Delay.P50, 100*st.Loss.Mean, st.Up.Mean, st.UpDelay.P50, 100*st.UpLoss.Mean)
		fmt.Fprintf(&b, "- files: %[1]s.down, %[1]s.up (Mahimahi delivery opportunities), %[1]s.delay and %[1]s.loss (the downlink's, one line per %[2]v), %[1]s.csv (time_s, rates, each direction's delay and loss), %[1]s.probes.csv (the light probes' delay under the load)\n",
			filepath.Base(f.Prefix), Step)
		for _, w := range f.Warnings {
			fmt.Fprintf(&b, "- **warning**: %s\n", w)
		}
	}
	if len(fs) == 2 {
		fmt.Fprintf(&b, "\nReplay both paths as recorded: `emu run --trace %s.csv,%s.csv --set trace.up=true`", filepath.Base(fs[0].Prefix), filepath.Base(fs[1].Prefix))
	} else {
		fmt.Fprintf(&b, "\nReplay: `emu run --trace %s.csv --set trace.up=true`", filepath.Base(fs[0].Prefix))
	}
	b.WriteString(" (each direction's rate, delay and loss; docs/record.md).\n")
	return b.String()
}
