package analysis

import (
	"io/fs"
	"time"

	"github.com/dc-emu/emu/emu/results"
)

// RTTStep is the interval at which the analysis reads a QUIC sender's
// smoothed RTT from its qlog when summary.json has no rtt_ms (runs write
// it at their run.tcpinfo_interval, 10 ms by default).
const RTTStep = 10 * time.Millisecond

// Where a flow's RTT figures come from (FlowAnalysis.RTTSource).
const (
	RTTFromTCPInfo = "tcp_info"
	RTTFromQlog    = "qlog"
	RTTFromSummary = "summary"
)

// readLatency reads each flow's TCP_INFO log and one-way delay log and
// fills its delay figures: rtt_ms and owd_ms as summary.json has them
// (computed from the same files when it has none), the TCP flows' RTT,
// window and retransmission figures from TCP_INFO, and the series the
// delay figures draw.
func (ra *RunAnalysis) readLatency(fsys fs.FS, sum *results.Summary) error {
	ra.TCPInfo = []*TCPInfoAnalysis{}
	fromSummary := map[string]results.FlowResult{}
	if sum != nil {
		for _, f := range sum.Flows {
			fromSummary[f.Name] = f
		}
	}
	qlogs := map[string]*ConnAnalysis{}
	for _, a := range ra.Qlogs {
		qlogs[a.File] = a
	}
	for i := range ra.Flows {
		fa := &ra.Flows[i]
		name := results.TCPInfoFile(fa.Name)
		rows, ok, err := readFSIfExists(fsys, name, results.ReadTCPInfo)
		if err != nil {
			return err
		}
		if ok {
			a := AnalyzeTCPInfo(rows, name, fa.Name)
			ra.TCPInfo = append(ra.TCPInfo, a)
			fa.setTCPInfo(a)
		}
		if fa.RTTSource == "" {
			if a := qlogs[fa.SenderQlog]; a != nil {
				fa.rtt, fa.RTTSource = QlogSRTTSeries(a, RTTStep, 0), RTTFromQlog
			}
		}
		name = results.OWDFile(fa.Name)
		owd, ok, err := readFSIfExists(fsys, name, results.ReadOWD)
		if err != nil {
			return err
		}
		if ok {
			fa.owd, fa.OWDLog = OWDSeries(owd), name
		}
		fa.RTTMs, fa.OWDMs = fa.rtt.StatsPtr(), fa.owd.StatsPtr()
		if sf, ok := fromSummary[fa.Name]; ok {
			if sf.RTTMs != nil {
				fa.RTTMs = sf.RTTMs
				if fa.RTTSource == "" {
					fa.RTTSource = RTTFromSummary // its qlog is not in the directory
				}
			}
			if sf.OWDMs != nil {
				fa.OWDMs = sf.OWDMs
			}
		}
	}
	return nil
}

// setTCPInfo gives a TCP flow the sender-side figures a QUIC flow gets
// from its qlog. PacketsLost is the segments retransmitted.
func (fa *FlowAnalysis) setTCPInfo(a *TCPInfoAnalysis) {
	fa.TCPInfoLog, fa.RTTSource, fa.rtt = a.File, RTTFromTCPInfo, a.RTT()
	if fa.SenderQlog != "" {
		return // a QUIC flow keeps its qlog figures
	}
	cwnd, lost := a.MaxCwndBytes, a.Retransmits
	fa.MaxCwndBytes, fa.PacketsLost = &cwnd, &lost
	fa.MeanSRTTMs, fa.P95SRTTMs, fa.MinRTTMs = a.MeanSRTTMs, a.P95SRTTMs, a.MinRTTMs
}
