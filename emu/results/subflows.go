package results

import (
	"math"
	"net/netip"
	"slices"
	"strconv"
)

// SubflowResult is one MPTCP subflow of a flow over the run (summary.json
// flows[].subflows), from the server's TCP_INFO log: the sender's view.
type SubflowResult struct {
	// ID is the kernel's subflow id within the connection (from 1).
	ID uint32 `json:"id"`
	// Link is the link the subflow took, by the client's address; "" if
	// the address is none the topology routes over one link.
	Link string `json:"link"`
	// Local and Remote are the server's and the client's address.
	Local  string `json:"local"`
	Remote string `json:"remote"`
	// FirstS and LastS are the times of its first and last sample.
	FirstS float64 `json:"first_s"`
	LastS  float64 `json:"last_s"`
	// BytesAcked, BytesSent and BytesRetrans are the subflow's payload
	// bytes at its last sample (tcpi_bytes_acked, _sent with
	// retransmissions, _retrans); Share is its part of the flow's
	// subflows' bytes_acked.
	BytesAcked   int64   `json:"bytes_acked"`
	BytesSent    int64   `json:"bytes_sent"`
	BytesRetrans int64   `json:"bytes_retrans"`
	Share        float64 `json:"share"`
	// SRTTMs summarises the smoothed RTT over the samples.
	SRTTMs       DelayStats `json:"srtt_ms"`
	MaxCwndBytes int64      `json:"max_cwnd_bytes"`
	// TotalRetrans counts retransmitted segments.
	TotalRetrans int64 `json:"total_retrans"`
	// CC is the subflow's own congestion control as the kernel reports it.
	CC string `json:"cc"`
}

// SubflowTotals are an MPTCP connection's subflows summed (summary.json
// flows[].subflow_totals).
type SubflowTotals struct {
	Subflows     int   `json:"subflows"`
	BytesAcked   int64 `json:"bytes_acked"`
	BytesSent    int64 `json:"bytes_sent"`
	BytesRetrans int64 `json:"bytes_retrans"`
	TotalRetrans int64 `json:"total_retrans"`
}

// Subflows summarises an MPTCP connection's TCP_INFO log per subflow, in
// id order; linkOf names the link of a client address. Rows of subflow 0
// (plain TCP) are left out: a connection that fell back has no subflows.
func Subflows(rows []TCPInfoRow, linkOf func(netip.Addr) string) ([]SubflowResult, SubflowTotals) {
	var out []SubflowResult
	srtts := map[uint32][]float64{}
	index := map[uint32]int{}
	for _, r := range rows {
		if r.Subflow == 0 {
			continue
		}
		i, ok := index[r.Subflow]
		if !ok {
			i = len(out)
			index[r.Subflow] = i
			sf := SubflowResult{ID: r.Subflow, FirstS: r.T, MaxCwndBytes: 0}
			if r.Remote.IsValid() {
				sf.Link = linkOf(r.Remote.Addr())
				sf.Remote = r.Remote.String()
			}
			if r.Local.IsValid() {
				sf.Local = r.Local.String()
			}
			out = append(out, sf)
		}
		sf := &out[i]
		sf.LastS = r.T
		for _, c := range []struct {
			dst *int64
			v   int64
		}{{&sf.BytesAcked, r.BytesAcked}, {&sf.BytesSent, r.BytesSent}, {&sf.BytesRetrans, r.BytesRetrans}, {&sf.TotalRetrans, r.TotalRetrans}} {
			*c.dst = max(*c.dst, c.v) // cumulative; Unknown (-1) never wins
		}
		sf.MaxCwndBytes = max(sf.MaxCwndBytes, r.CwndBytes)
		if r.CC != "" {
			sf.CC = r.CC
		}
		srtts[r.Subflow] = append(srtts[r.Subflow], r.SRTTMs)
	}
	slices.SortFunc(out, func(a, b SubflowResult) int { return int(a.ID) - int(b.ID) })
	var tot SubflowTotals
	for i := range out {
		sf := &out[i]
		sf.SRTTMs, _ = SummarizeDelays(srtts[sf.ID])
		sf.SRTTMs = roundDelays(sf.SRTTMs)
		tot.Subflows++
		tot.BytesAcked += sf.BytesAcked
		tot.BytesSent += sf.BytesSent
		tot.BytesRetrans += sf.BytesRetrans
		tot.TotalRetrans += sf.TotalRetrans
	}
	for i := range out {
		if tot.BytesAcked > 0 {
			out[i].Share = Round3(float64(out[i].BytesAcked) / float64(tot.BytesAcked))
		}
	}
	return out, tot
}

func roundDelays(d DelayStats) DelayStats {
	d.P50, d.P95, d.P99, d.Max, d.Mean = Round3(d.P50), Round3(d.P95), Round3(d.P99), Round3(d.Max), Round3(d.Mean)
	return d
}

// SubflowSeries returns the timeseries.csv columns of one MPTCP flow's
// subflows, four per subflow in id order — flow.<name>.sf<id>.mbps (bytes
// the subflow had acknowledged in the bin, Mbit/s), .srtt_ms and
// .cwnd_bytes (the bin's last sample) and .retrans (retransmitted
// segments so far) — with one value per bin of ends (each bin's end in
// seconds, every bin width wide). A bin without a sample of the subflow
// has no srtt and cwnd (NaN); before its first sample it has sent nothing.
func SubflowSeries(flow string, rows []TCPInfoRow, ends []float64, width float64) (header []string, cols [][]float64) {
	bySubflow := map[uint32][]TCPInfoRow{}
	var ids []uint32
	for _, r := range rows {
		if r.Subflow == 0 {
			continue
		}
		if _, ok := bySubflow[r.Subflow]; !ok {
			ids = append(ids, r.Subflow)
		}
		bySubflow[r.Subflow] = append(bySubflow[r.Subflow], r)
	}
	slices.Sort(ids)
	for _, id := range ids {
		rs := bySubflow[id]
		p := "flow." + flow + ".sf" + strconv.FormatUint(uint64(id), 10) + "."
		header = append(header, p+"mbps", p+"srtt_ms", p+"cwnd_bytes", p+"retrans")
		mbps, srtt, cwnd, retr := make([]float64, len(ends)), make([]float64, len(ends)), make([]float64, len(ends)), make([]float64, len(ends))
		j := 0 // rows before j are at or before the previous bin's end
		var acked, retrans int64
		for k, end := range ends {
			prevAcked := acked
			srtt[k], cwnd[k] = math.NaN(), math.NaN()
			for ; j < len(rs) && rs[j].T <= end; j++ {
				r := rs[j]
				acked, retrans = max(acked, r.BytesAcked), max(retrans, r.TotalRetrans)
				srtt[k] = r.SRTTMs
				cwnd[k] = float64(r.CwndBytes)
				if r.CwndBytes == Unknown {
					cwnd[k] = math.NaN()
				}
			}
			mbps[k] = Round3(float64(acked-prevAcked) * 8 / width / 1e6)
			retr[k] = float64(retrans)
		}
		cols = append(cols, mbps, srtt, cwnd, retr)
	}
	return header, cols
}
