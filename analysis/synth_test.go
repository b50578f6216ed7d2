package analysis

import (
	"bytes"
	"fmt"
	"strconv"
	"testing"

	"github.com/dc-emu/emu/internal/emutest"
)

// synthDownload writes the qlog pair of a quic-go-like download of size
// bytes in 1350-byte stream frames: the server sends every frame, loses
// every 500th packet (retransmitted under a new packet number 10 packets
// later) and logs metrics_updated on every ACK; the client receives the
// packets with every 200th one swapped with its successor (reordering at
// distance 1) and every 1000th held back behind the next five, and
// acknowledges every second packet. Retransmissions carry new packet
// numbers, so they are not reordering. It returns the files
// and the figures the analysis must find.
type synthFigures struct {
	bytes     int64
	lost      int64
	reordered int64
	farReord  int64 // reordered at sequence distance ≥ 3
	maxCwnd   int64
}

func synthDownload(size int64) (client, server []byte, want synthFigures) {
	const frame = 1350
	hdr := func(vp string) string {
		return "\x1e" + `{"file_schema":"urn:ietf:params:qlog:file:sequential","serialization_format":"application/qlog+json-seq","title":"quic-go qlog","code_version":"v0.65.0","trace":{"event_schemas":["urn:ietf:params:qlog:events:quic-14"],"vantage_point":{"type":"` + vp + `"},"common_fields":{"group_id":"00","reference_time":{"clock_type":"monotonic","epoch":"unknown","wall_clock_time":"2026-11-30T00:00:00Z"}}},"qlog_format":"JSON-SEQ","qlog_version":"0.3"}` + "\n"
	}
	var cb, sb bytes.Buffer
	cb.WriteString(hdr("client"))
	sb.WriteString(hdr("server"))
	num := func(buf *bytes.Buffer, v float64) { buf.Write(strconv.AppendFloat(nil, v, 'f', 6, 64)) }
	type pkt struct {
		pn, off, n int64
	}
	var sent []pkt // in send order, retransmissions included
	var pending []pkt
	pn := int64(0)
	t := 1.0
	cwnd := int64(40960)
	for off := int64(0); off < size; off += frame {
		n := min(int64(frame), size-off)
		p := pkt{pn, off, n}
		pn++
		if p.pn%500 == 499 {
			pending = append(pending, p) // lost: retransmit later
			want.lost++
		}
		sent = append(sent, p)
		if len(pending) > 0 && p.pn%500 == 9 {
			r := pending[0]
			pending = pending[1:]
			sent = append(sent, pkt{pn, r.off, r.n})
			pn++
		}
	}
	for _, r := range pending {
		sent = append(sent, pkt{pn, r.off, r.n})
		pn++
	}
	lostSet := map[int64]bool{}
	for i, p := range sent {
		t += 0.0108 // 1350 B at ~1 Gbit/s
		sb.WriteString("\x1e{\"time\":")
		num(&sb, t)
		fmt.Fprintf(&sb, `,"name":"transport:packet_sent","data":{"header":{"packet_type":"1RTT","packet_number":%d,"version":"1","dcid":"f8980ae6","key_phase_bit":false},"raw":{"length":%d,"payload_length":%d},"frames":[{"frame_type":"stream","stream_id":0,"offset":%d,"length":%d}],"ecn":"ECT(0)"}}`+"\n",
			p.pn, p.n+27, p.n+20, p.off, p.n)
		if p.pn%500 == 499 && i < len(sent)-len(pending) {
			lostSet[p.pn] = true
			sb.WriteString("\x1e{\"time\":")
			num(&sb, t+0.3)
			fmt.Fprintf(&sb, `,"name":"recovery:packet_lost","data":{"header":{"packet_type":"1RTT","packet_number":%d},"trigger":"reordering_threshold"}}`+"\n", p.pn)
			sb.WriteString("\x1e{\"time\":")
			num(&sb, t+0.31)
			sb.WriteString(`,"name":"recovery:congestion_state_updated","data":{"new":"recovery"}}` + "\n")
			cwnd = max(cwnd/2, 14000)
		}
		if i%2 == 1 {
			cwnd = min(cwnd+1350, 4<<20)
			want.maxCwnd = max(want.maxCwnd, cwnd)
			sb.WriteString("\x1e{\"time\":")
			num(&sb, t+0.2)
			fmt.Fprintf(&sb, `,"name":"recovery:metrics_updated","data":{"min_rtt":10.1,"smoothed_rtt":%.3f,"latest_rtt":10.4,"rtt_variance":0.2,"congestion_window":%d,"bytes_in_flight":%d,"packets_in_flight":30}}`+"\n",
				10.2+float64(i%7)/10, cwnd, cwnd-2000)
			sb.WriteString("\x1e{\"time\":")
			num(&sb, t+0.21)
			fmt.Fprintf(&sb, `,"name":"transport:packet_received","data":{"header":{"packet_type":"1RTT","packet_number":%d,"dcid":"20b97b21","key_phase_bit":false},"raw":{"length":30,"payload_length":23},"frames":[{"frame_type":"ack","ack_delay":0.064,"acked_ranges":[[%d,%d]]}]}}`+"\n",
				i/2, max(0, p.pn-20), p.pn)
		}
	}
	// Client: arrivals in order except lost packets, with every 200th
	// arrival swapped with the next.
	var arr []pkt
	for _, p := range sent {
		if !lostSet[p.pn] {
			arr = append(arr, p)
		}
	}
	for i := 100; i+6 < len(arr); i += 1000 { // held back behind 5 later packets
		p := arr[i]
		copy(arr[i:i+5], arr[i+1:i+6])
		arr[i+5] = p
		want.reordered++
		want.farReord++
	}
	for i := 199; i+1 < len(arr); i += 200 {
		arr[i], arr[i+1] = arr[i+1], arr[i]
		want.reordered++
	}
	t = 6.0
	for i, p := range arr {
		t += 0.0108
		cb.WriteString("\x1e{\"time\":")
		num(&cb, t)
		fmt.Fprintf(&cb, `,"name":"transport:packet_received","data":{"header":{"packet_type":"1RTT","packet_number":%d,"dcid":"f8980ae6","key_phase_bit":false},"raw":{"length":%d,"payload_length":%d},"frames":[{"frame_type":"stream","stream_id":0,"offset":%d,"length":%d}]}}`+"\n",
			p.pn, p.n+27, p.n+20, p.off, p.n)
		if i%2 == 1 {
			cb.WriteString("\x1e{\"time\":")
			num(&cb, t+0.001)
			fmt.Fprintf(&cb, `,"name":"transport:packet_sent","data":{"header":{"packet_type":"1RTT","packet_number":%d,"version":"1","dcid":"20b97b21","key_phase_bit":true},"raw":{"length":29,"payload_length":22},"frames":[{"frame_type":"ack","ack_delay":0.06752,"acked_ranges":[[%d,%d]]}]}}`+"\n",
				i/2, max(0, p.pn-20), p.pn)
		}
	}
	want.bytes = size
	return cb.Bytes(), sb.Bytes(), want
}

func TestSyntheticDownload(t *testing.T) {
	client, server, want := synthDownload(8 << 20)
	c, err := AnalyzeQlog(bytes.NewReader(client), "client", QlogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := AnalyzeQlog(bytes.NewReader(server), "server", QlogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Totals.BytesReceived != want.bytes || c.Totals.ReorderedPackets != want.reordered ||
		s.Totals.PacketsLost != want.lost || s.Totals.MaxCwndBytes != want.maxCwnd {
		t.Errorf("got bytes %d reordered %d lost %d cwnd %d; want %+v", c.Totals.BytesReceived, c.Totals.ReorderedPackets,
			s.Totals.PacketsLost, s.Totals.MaxCwndBytes, want)
	}
	if c.Reordering.DistanceGE3 != want.farReord || s.Totals.CongestionEvents != want.lost {
		t.Errorf("distance≥3 %d, congestion events %d", c.Reordering.DistanceGE3, s.Totals.CongestionEvents)
	}
}

// BenchmarkAnalyzeDownload100MB: both sides of a 100 MB download (about
// 78 000 data packets per side) through the full extraction.
func BenchmarkAnalyzeDownload100MB(b *testing.B) {
	client, server, _ := synthDownload(100 << 20)
	b.SetBytes(int64(len(client) + len(server)))
	b.ReportAllocs()
	emutest.Exclusive(b)
	for b.Loop() {
		for _, f := range [][]byte{client, server} {
			if _, err := AnalyzeQlog(bytes.NewReader(f), "bench", QlogOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(client)+len(server))/1e6, "qlog-MB")
}
