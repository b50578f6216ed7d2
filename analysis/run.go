package analysis

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dc-emu/emu/analysis/qlog"
	"github.com/dc-emu/emu/emu/fidelity"
	"github.com/dc-emu/emu/emu/results"
)

// RunOptions configures AnalyzeRun and AnalyzeSweep.
type RunOptions struct {
	// Bin is the width of the qlog time-series bins; zero means 100 ms.
	Bin time.Duration
	// SkipQlog leaves the qlog files unread (a sweep that needs only the
	// summary figures runs much faster without them).
	SkipQlog bool
}

// RunAnalysis is what `emu analyze` writes as a run's analysis.json.
type RunAnalysis struct {
	Run       string    `json:"run"`
	Scenario  string    `json:"scenario"`
	Status    string    `json:"status"`
	Error     string    `json:"error,omitempty"`
	Seed      string    `json:"seed,omitempty"`
	Started   string    `json:"started,omitempty"`
	DurationS NullFloat `json:"duration_s"`

	Flows []FlowAnalysis `json:"flows"`
	// JFI is Jain's index over the flows' goodput (1 for one flow).
	JFI NullFloat `json:"jfi"`
	// JFIActive is Jain's index over the flows' mean goodput in the bins of
	// timeseries.csv where all of them are active (metrics.md §1: leave out
	// start-up and tail); null with fewer than two flows.
	JFIActive     NullFloat    `json:"jfi_active"`
	ActiveWindowS [2]NullFloat `json:"active_window_s"`
	Links         []LinkUsage  `json:"links"`
	// Utilization is Σ throughput / Σ capacity over the links of each
	// direction ("down", "up").
	Utilization map[string]NullFloat `json:"utilization"`
	// PDCP holds the PDCP counters per direction; Repairs is the number of
	// PDUs that arrived out of order and were delivered in order.
	PDCP map[string]PDCPSummary `json:"pdcp"`

	Qlogs    []*ConnAnalysis `json:"qlogs"`
	Warnings []string        `json:"warnings"`
	// Fidelity is the run's verdict from summary.json (nil for runs
	// without one).
	Fidelity *fidelity.Fidelity `json:"fidelity,omitempty"`
	// Workloads are the flows of kinds other than bulk (workload.go).
	Workloads []WorkloadAnalysis `json:"workloads,omitempty"`

	// Timeseries is the run's timeseries.csv, for the plots (nil if absent).
	Timeseries *results.Timeseries `json:"-"`
	// TCPInfo holds the TCP flows' TCP_INFO logs (tcpinfo.go).
	TCPInfo []*TCPInfoAnalysis `json:"tcpinfo"`
}

// FlowAnalysis is one flow of a run. Figures from qlog are null for flows
// without one (TCP). For a download the receiver is the client and the
// sender the server; the roles are taken from which side received more
// stream bytes, so uploads work too.
type FlowAnalysis struct {
	Name       string `json:"name"`
	Proto      string `json:"proto,omitempty"`
	ServerImpl string `json:"server_impl,omitempty"`
	ClientImpl string `json:"client_impl,omitempty"`
	CC         string `json:"cc,omitempty"`
	Complete   *bool  `json:"complete,omitempty"`
	// Kind is rr, cbr or objects; empty for a bulk flow, the only ones
	// Jain's index is over.
	Kind string `json:"kind,omitempty"`

	// GoodputMbps is the application goodput: from summary.json, else from
	// flows/<flow>.csv, else from the receiver's qlog (GoodputSource says).
	GoodputMbps   NullFloat `json:"goodput_mbps"`
	GoodputSource string    `json:"goodput_source"`
	AppBytes      *int64    `json:"app_bytes"`

	// From the receiver's qlog.
	BytesReceived    *int64    `json:"bytes_received"`
	ReorderedPackets *int64    `json:"reordered_packets"`
	ReorderedRatio   NullFloat `json:"reordered_ratio"`
	QlogGoodputMbps  NullFloat `json:"qlog_goodput_mbps"`
	// AckThresh is the receiver's ACK threshold from summary.json (ngtcp2
	// clients; flow.ack_thresh), and the figures beside it what it gave,
	// from the receiver's qlog: the ACK frames it sent, the packets with
	// stream data it received, and their ratio. Absent for flows whose
	// receiver takes no threshold.
	AckThresh         int      `json:"ack_thresh,omitempty"`
	AckFrames         *int64   `json:"ack_frames,omitempty"`
	DataPackets       *int64   `json:"data_packets,omitempty"`
	AcksPerDataPacket *float64 `json:"acks_per_data_packet,omitempty"`
	// From the sender's qlog.
	PacketsLost  *int64    `json:"packets_lost"`
	MaxCwndBytes *int64    `json:"max_cwnd_bytes"`
	MeanSRTTMs   NullFloat `json:"mean_srtt_ms"`
	P95SRTTMs    NullFloat `json:"p95_srtt_ms"`
	MinRTTMs     NullFloat `json:"min_rtt_ms"`

	ReceiverQlog string `json:"receiver_qlog,omitempty"`
	SenderQlog   string `json:"sender_qlog,omitempty"`

	// Delays (latency.go): RTTMs from the sender's TCP_INFO log (TCP) or
	// qlog (QUIC), OWDMs from the client's one-way delay log.
	RTTMs      *results.DelayStats `json:"rtt_ms"`
	RTTSource  string              `json:"rtt_source,omitempty"` // tcp_info | qlog | summary
	OWDMs      *results.DelayStats `json:"owd_ms"`
	TCPInfoLog string              `json:"tcpinfo_log,omitempty"`
	OWDLog     string              `json:"owd_log,omitempty"`
	rtt, owd   DelaySeries
}

// LinkUsage is one link direction over the run.
type LinkUsage struct {
	Name           string    `json:"name"`
	Dir            string    `json:"dir"`
	CapacityMbps   NullFloat `json:"capacity_mbps"`
	ThroughputMbps NullFloat `json:"throughput_mbps"`
	Utilization    NullFloat `json:"utilization"`
	Source         string    `json:"source"` // summary | timeseries
	// DelayJumpsS are the times (s) the direction's delay trace jumped
	// during the run and DelayJumpPeriodS their period, from summary.json.
	DelayJumpsS      []float64 `json:"delay_jumps_s,omitempty"`
	DelayJumpPeriodS float64   `json:"delay_jump_period_s,omitempty"`
}

// PDCPSummary is results.PDCPCounters plus the derived repair count.
type PDCPSummary struct {
	results.PDCPCounters
	Repairs int64  `json:"repairs"`
	Source  string `json:"source"` // summary | counters
}

// IsRunDir reports whether fsys looks like a run directory.
func IsRunDir(fsys fs.FS) bool {
	for _, name := range []string{results.SummaryFile, results.TimeseriesFile, results.QlogDir} {
		if _, err := fs.Stat(fsys, name); err == nil {
			return true
		}
	}
	return false
}

// AnalyzeRun reads a run directory (fsys rooted at it) and computes the
// per-flow and per-run figures. Missing optional files and truncated qlog
// files become Warnings; malformed files are errors naming file and line.
func AnalyzeRun(fsys fs.FS, opt RunOptions) (*RunAnalysis, error) {
	if !IsRunDir(fsys) {
		return nil, fmt.Errorf("not a run directory: no %s, %s or %s/", results.SummaryFile, results.TimeseriesFile, results.QlogDir)
	}
	ra := &RunAnalysis{
		DurationS:   unknown(),
		JFI:         unknown(),
		JFIActive:   unknown(),
		Utilization: map[string]NullFloat{},
		PDCP:        map[string]PDCPSummary{},
		Qlogs:       []*ConnAnalysis{},
		Warnings:    []string{},
	}
	ra.ActiveWindowS = [2]NullFloat{unknown(), unknown()}

	sum, err := readJSONIfExists[results.Summary](fsys, results.SummaryFile)
	if err != nil {
		return nil, err
	}
	if sum == nil {
		ra.warn("no %s: the run did not finish writing; figures come from the other files", results.SummaryFile)
	} else {
		ra.Run, ra.Scenario, ra.Status, ra.Error = sum.Run, sum.Scenario, sum.Status, sum.Error
		ra.Fidelity = sum.Fidelity
		ra.Seed, ra.DurationS = strconv.FormatUint(sum.Seed, 10), NullFloat(sum.DurationS)
		if !sum.Started.IsZero() {
			ra.Started = sum.Started.Format(time.RFC3339Nano)
		}
		if ra.Status != "" && ra.Status != "ok" {
			ra.warn("run status is %q: %s", ra.Status, sum.Error)
		}
	}

	if ts, ok, err := readFSIfExists(fsys, results.TimeseriesFile, results.ReadTimeseries); err != nil {
		return nil, err
	} else if ok {
		ra.Timeseries = ts
	}

	counters, err := readJSONIfExists[results.Counters](fsys, results.CountersFile)
	if err != nil {
		return nil, err
	}

	conns := map[string]map[string]*ConnAnalysis{} // flow → side → analysis
	if !opt.SkipQlog {
		if err := ra.readQlogs(fsys, opt, conns); err != nil {
			return nil, err
		}
	}
	samples, err := readFlowFiles(fsys)
	if err != nil {
		return nil, err
	}

	ra.buildFlows(sum, conns, samples)
	if err := ra.readLatency(fsys, sum); err != nil {
		return nil, err
	}
	ra.computeFairness()
	ra.computeLinks(sum)
	ra.computePDCP(sum, counters)
	if err := ra.readWorkloads(fsys, sum); err != nil {
		return nil, err
	}
	return ra, nil
}

func (ra *RunAnalysis) warn(format string, args ...any) {
	ra.Warnings = append(ra.Warnings, fmt.Sprintf(format, args...))
}

// ifExists runs read when name exists in fsys.
func ifExists(fsys fs.FS, name string, read func() error) error {
	if _, err := fs.Stat(fsys, name); errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	return read()
}

// readJSONIfExists reads the JSON file name into a new T; it returns nil,
// and no error, when fsys has no such file.
func readJSONIfExists[T any](fsys fs.FS, name string) (*T, error) {
	var v *T
	err := ifExists(fsys, name, func() error {
		v = new(T)
		return results.ReadJSON(fsys, name, v)
	})
	return v, err
}

// readFSIfExists is readFS for a file that may be missing: ok is false,
// and the error nil, when it is.
func readFSIfExists[T any](fsys fs.FS, name string, read func(io.Reader, string) (T, error)) (v T, ok bool, err error) {
	v, err = readFS(fsys, name, read)
	if errors.Is(err, fs.ErrNotExist) {
		return v, false, nil
	}
	return v, err == nil, err
}

// readFS opens name in fsys and reads it with read, which names it in
// errors.
func readFS[T any](fsys fs.FS, name string, read func(io.Reader, string) (T, error)) (T, error) {
	f, err := fsys.Open(name)
	if err != nil {
		var zero T
		return zero, err
	}
	defer f.Close()
	return read(f, name)
}

func (ra *RunAnalysis) readQlogs(fsys fs.FS, opt RunOptions, conns map[string]map[string]*ConnAnalysis) error {
	files, err := results.QlogFiles(fsys)
	if err != nil {
		return err
	}
	for _, name := range files {
		a, err := analyzeQlogFS(fsys, name, QlogOptions{Bin: opt.Bin})
		if errors.Is(err, qlog.ErrTruncated) {
			ra.warn("%v; figures cover the complete records before it", err)
		} else if err != nil {
			return err
		}
		ra.Qlogs = append(ra.Qlogs, a)
		flow, side := qlogRole(path.Base(name), a.Vantage)
		if conns[flow] == nil {
			conns[flow] = map[string]*ConnAnalysis{}
		}
		if prev := conns[flow][side]; prev != nil {
			ra.warn("flow %s has two %s qlog files (%s, %s); using the first", flow, side, prev.File, name)
			continue
		}
		conns[flow][side] = a
	}
	return nil
}

func analyzeQlogFS(fsys fs.FS, name string, opt QlogOptions) (*ConnAnalysis, error) {
	f, err := results.OpenQlog(fsys, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return AnalyzeQlog(f, name, opt)
}

// qlogRole maps "dc-client.sqlog" to flow "dc", side "client". Files not
// named that way are their own flow, with the side from the header.
func qlogRole(base, vantage string) (flow, side string) {
	stem := results.QlogStem(base)
	for _, s := range []string{"client", "server"} {
		if f, ok := strings.CutSuffix(stem, "-"+s); ok && f != "" {
			return f, s
		}
	}
	if vantage == "" {
		vantage = "unknown"
	}
	return stem, vantage
}

func readFlowFiles(fsys fs.FS) (map[string][]results.FlowSample, error) {
	files, err := fs.Glob(fsys, results.FlowsDir+"/*.csv")
	if err != nil {
		return nil, err
	}
	out := map[string][]results.FlowSample{}
	for _, name := range files {
		if strings.Contains(strings.TrimSuffix(path.Base(name), ".csv"), ".") {
			continue // a flow's other logs (flows/<flow>.rr.csv, …): flow names have no dots
		}
		s, err := readFS(fsys, name, results.ReadFlowSamples)
		if err != nil {
			return nil, err
		}
		out[strings.TrimSuffix(path.Base(name), ".csv")] = s
	}
	return out, nil
}

func (ra *RunAnalysis) buildFlows(sum *results.Summary, conns map[string]map[string]*ConnAnalysis, samples map[string][]results.FlowSample) {
	var names []string
	seen := map[string]bool{}
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	summaryFlows := map[string]results.FlowResult{}
	if sum != nil {
		for _, f := range sum.Flows {
			summaryFlows[f.Name] = f
			add(f.Name)
		}
	}
	var extra []string
	for n := range conns {
		extra = append(extra, n)
	}
	for n := range samples {
		extra = append(extra, n)
	}
	if ra.Timeseries != nil {
		extra = append(extra, ra.Timeseries.Flows()...)
	}
	sort.Strings(extra)
	for _, n := range extra {
		add(n)
	}
	ra.Flows = make([]FlowAnalysis, 0, len(names))
	for _, name := range names {
		fa := FlowAnalysis{Name: name, GoodputMbps: unknown(), ReorderedRatio: unknown(), QlogGoodputMbps: unknown(),
			MeanSRTTMs: unknown(), P95SRTTMs: unknown(), MinRTTMs: unknown()}
		startS := 0.0
		if sf, ok := summaryFlows[name]; ok {
			fa.Proto, fa.ServerImpl, fa.ClientImpl, fa.CC = sf.Proto, sf.ServerImpl, sf.ClientImpl, sf.CC
			fa.AckThresh = sf.AckThresh
			if !sf.IsBulk() {
				fa.Kind = sf.Kind
			}
			complete := sf.Complete
			fa.Complete = &complete
			startS = sf.StartS
			fa.GoodputMbps, fa.GoodputSource = NullFloat(sf.GoodputMbps), "summary"
			b := sf.Bytes
			fa.AppBytes = &b
			if sf.Error != "" {
				ra.warn("flow %s: %s", name, sf.Error)
			}
		}
		if s := samples[name]; len(s) > 0 {
			last := s[len(s)-1]
			if fa.AppBytes == nil {
				b := last.Bytes
				fa.AppBytes = &b
			}
			if !fa.GoodputMbps.Valid() && last.TS > startS {
				fa.GoodputMbps = NullFloat(float64(last.Bytes) * 8 / (last.TS - startS) / 1e6)
				fa.GoodputSource = "flows_csv"
			}
		}
		fa.setQlog(conns[name])
		if !fa.GoodputMbps.Valid() && fa.QlogGoodputMbps.Valid() {
			fa.GoodputMbps, fa.GoodputSource = fa.QlogGoodputMbps, "qlog"
		}
		if fa.GoodputSource == "" {
			fa.GoodputSource = "none"
		}
		ra.Flows = append(ra.Flows, fa)
	}
}

// setQlog fills the qlog figures: receiver-side ones from the side that
// received more stream bytes, sender-side ones from the other.
func (fa *FlowAnalysis) setQlog(sides map[string]*ConnAnalysis) {
	var list []*ConnAnalysis
	for _, s := range []string{"client", "server", "transport", "unknown"} {
		if a := sides[s]; a != nil {
			list = append(list, a)
		}
	}
	if len(list) == 0 {
		return
	}
	rcv, snd := list[0], list[0]
	for _, a := range list[1:] {
		if a.Totals.BytesReceived > rcv.Totals.BytesReceived {
			rcv = a
		}
	}
	for _, a := range list {
		if a != rcv {
			snd = a
			break
		}
	}
	ptr := func(v int64) *int64 { return &v }
	fa.ReceiverQlog, fa.SenderQlog = rcv.File, snd.File
	fa.BytesReceived = ptr(rcv.Totals.BytesReceived)
	fa.ReorderedPackets = ptr(rcv.Totals.ReorderedPackets)
	fa.ReorderedRatio = NullFloat(rcv.Reordering.Ratio)
	fa.QlogGoodputMbps = rcv.Totals.GoodputMbps
	if fa.AckThresh > 0 {
		fa.AckFrames, fa.DataPackets = ptr(rcv.Totals.AckFramesSent), ptr(rcv.Totals.DataPacketsReceived)
		if n := rcv.Totals.DataPacketsReceived; n > 0 {
			r := float64(rcv.Totals.AckFramesSent) / float64(n)
			fa.AcksPerDataPacket = &r
		}
	}
	fa.PacketsLost = ptr(snd.Totals.PacketsLost)
	fa.MaxCwndBytes = ptr(snd.Totals.MaxCwndBytes)
	fa.MeanSRTTMs, fa.P95SRTTMs, fa.MinRTTMs = snd.Totals.MeanSRTTMs, snd.Totals.P95SRTTMs, snd.Totals.MinRTTMs
}
