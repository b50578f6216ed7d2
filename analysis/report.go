package analysis

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"path"
	"strings"

	"github.com/dc-emu/emu/emu/results"
)

// WriteRunReport writes a run's report.html: one self-contained page (the
// figures inlined as SVG data, the styles inline, no external resource)
// with the run's configuration, the tables emu analyze prints, every
// figure with how it was obtained, the notes on figures left out, and
// relative links to the run's files (qlog, pcap, TLS keys, logs). fsys is
// the run directory; the page is meant to be written into it.
func WriteRunReport(w io.Writer, fsys fs.FS, ra *RunAnalysis, figs []*Figure, notes []string) error {
	d := runReport{RA: ra, Notes: notes, Title: "Run " + orDash(ra.Run)}
	sum, err := readJSONIfExists[results.Summary](fsys, results.SummaryFile)
	if err != nil {
		return err
	}
	if sum != nil {
		d.Summary = sum
		d.Config = results.SortedPairs(sum.Config)
		var b bytes.Buffer
		results.WriteReport(&b, sum, "")
		d.Terminal = strings.TrimSpace(b.String())
	}
	var b bytes.Buffer
	WriteRun(&b, ra)
	d.Analysis = strings.TrimSpace(b.String())
	for _, f := range figs {
		var svg bytes.Buffer
		if err := f.Render(&svg, "svg"); err != nil {
			return fmt.Errorf("report: figure %s: %w", f.Name, err)
		}
		d.Figures = append(d.Figures, reportFigure{
			Name: f.Name, Caption: FigureCaption(f.Name),
			Src: results.SVGDataURL(svg.Bytes()),
		})
	}
	if d.Files, err = reportFiles(fsys); err != nil {
		return err
	}
	d.Tshark = tsharkHints(d.Files)
	if err := runReportTemplate.Execute(w, d); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// FigureCaption says what a run figure shows and where its data come
// from (docs/results.md has the same text).
func FigureCaption(name string) string {
	switch {
	case name == "throughput":
		return "Goodput of each flow per 100 ms bin (its client's receive log, flows/<flow>.csv) and the capacity of each downlink (configured or trace-replayed rate)."
	case name == "utilization":
		return "Throughput ÷ capacity of each link direction per 100 ms bin, from the rate limiters' byte counters, and of all downlinks together."
	case name == "delay":
		return "Per 100 ms bin (" + results.TimeseriesFile + "): goodput; RTT, the sender's smoothed RTT (TCP: TCP_INFO samples every run.tcpinfo_interval; QUIC: the qlog's smoothed_rtt read at the same interval); one-way delay, the client's read time minus the server's send stamp, per 64 KiB stamp."
	case name == "queue-delay":
		return "How long packets waited in each link direction's rate limiter queue (" + results.TimeseriesFile + " link<N>.<dir>.queue_delay_ms); directions that never queued are left out."
	case name == "late":
		return "Each delay line's longest release lateness per 100 ms bin (" + results.TimeseriesFile + " link<N>.<dir>.late_max_ms): when in the run the emulation fell behind its schedule, and by how much; the fidelity verdict's delay_line.late_max is the run's largest."
	case strings.HasPrefix(name, "credit-"):
		return "With DC flow control (dc.fc=ddds), per PDCP direction: above, each leg's credit, the bytes the PDCP host may still send it, at the end of each 100 ms bin (" + results.TimeseriesFile + " pdcp.<dir>.<link>.credit_bytes; at or below 0 the leg is stopped); below, each leg's throughput and capacity per bin (link<N>.<dir>.throughput_mbps, capacity_mbps). Where a leg's rate collapses, look for its credit falling to 0 and the traffic moving to the other leg."
	case name == "owd-cdf":
		return "Distribution of each flow's one-way delay over its send stamps (flows/<flow>.owd.csv): the fraction of stamps read within x ms of being written."
	case strings.HasPrefix(name, "congestion-") && strings.HasSuffix(name, "-tcpinfo"):
		return "The sender's kernel view of a TCP flow from its TCP_INFO log (flows/<flow>.tcpinfo.csv): congestion window and bytes in flight with retransmissions marked, smoothed and minimum RTT; one line per subflow for MPTCP."
	case strings.HasPrefix(name, "congestion-"):
		return "The sender's congestion view from its qlog (metrics_updated, packet_lost): congestion window, bytes in flight and lost packets; latest, smoothed and minimum RTT."
	}
	return ""
}

// reportFiles lists the run directory's files a reader may want, by
// group, as relative paths.
func reportFiles(fsys fs.FS) ([]fileGroup, error) {
	groups := []struct{ name, pattern string }{
		{"results", "*.json"},
		{"results", "*.csv"},
		{"per-flow logs", "flows/*"},
		{"qlog", "qlog/*"},
		{"packet captures", "pcap/*.pcapng"},
		{"TLS keys (SSLKEYLOGFILE)", "tls/*.keys"},
		{"endpoint logs", "logs/*"},
		{"figures", "plots/*.svg"},
	}
	var out []fileGroup
	for _, g := range groups {
		m, err := fs.Glob(fsys, g.pattern)
		if err != nil {
			return nil, err
		}
		if len(m) == 0 {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Name == g.name {
			out[n-1].Files = append(out[n-1].Files, m...)
			continue
		}
		out = append(out, fileGroup{Name: g.name, Files: m})
	}
	return out, nil
}

// tsharkHints gives, for each capture, the command that decrypts it with
// the run's key logs.
func tsharkHints(groups []fileGroup) []string {
	var pcaps, keys []string
	for _, g := range groups {
		for _, f := range g.Files {
			switch {
			case strings.HasPrefix(f, "pcap/"):
				pcaps = append(pcaps, f)
			case strings.HasPrefix(f, "tls/") && strings.HasSuffix(f, ".keys"):
				keys = append(keys, f)
			}
		}
	}
	if len(pcaps) == 0 {
		return nil
	}
	keyFile := "tls/all.keys"
	var out []string
	if len(keys) > 0 {
		out = append(out, "cat "+strings.Join(keys, " ")+" > "+keyFile)
	}
	for _, p := range pcaps {
		out = append(out, fmt.Sprintf("tshark -r %s -o tls.keylog_file:%s -Y 'http3 || http2'", p, keyFile))
	}
	return out
}

type runReport struct {
	Title    string
	RA       *RunAnalysis
	Summary  *results.Summary
	Config   [][2]string
	Terminal string
	Analysis string
	Figures  []reportFigure
	Notes    []string
	Files    []fileGroup
	Tshark   []string
}

type reportFigure struct {
	Name, Caption string
	Src           template.URL
}

type fileGroup struct {
	Name  string
	Files []string
}

var runReportTemplate = template.Must(template.New("run").Funcs(template.FuncMap{
	"ms": func(d *results.DelayStats, which string) string {
		if d == nil {
			return "–"
		}
		v := map[string]float64{"p50": d.P50, "p95": d.P95, "p99": d.P99, "max": d.Max, "mean": d.Mean}[which]
		return fmt.Sprintf("%.2f", v)
	},
	"num":   func(v NullFloat, prec int) string { return anFloat(v, prec) },
	"deref": func(b *bool) bool { return *b },
	"int":   anInt,
	"kB":    anKB,
	"pct":   anPercent,
	"base":  path.Base,
}).Parse(results.PageHead + `<p>Scenario <b>{{.RA.Scenario}}</b>, status <b{{if ne .RA.Status "ok"}} class="bad"{{end}}>{{.RA.Status}}</b>, seed {{.RA.Seed}}, {{num .RA.DurationS 1}} s{{if .RA.Started}}, started {{.RA.Started}}{{end}}.{{if .RA.Error}} <span class="bad">{{.RA.Error}}</span>{{end}}</p>
{{with .Summary}}<p>emu {{.Versions.Emu}}, Go {{.Versions.Go}}, kernel {{.Versions.Kernel}}, quic-go {{.Versions.QuicGo}}{{if .Versions.Ngtcp2}}, ngtcp2 {{.Versions.Ngtcp2}}{{end}}.</p>{{end}}

<h2>Flows</h2>
<div class="wide"><table>
<tr><th>flow</th><th>proto</th><th>server → client</th><th>cc</th><th>goodput (Mbit/s)</th><th>mean sRTT (ms)</th><th>p95 sRTT (ms)</th><th>max cwnd (kB)</th><th>lost / retransmitted</th><th>reordered</th><th>complete</th></tr>
{{range .RA.Flows}}<tr><td>{{.Name}}</td><td>{{.Proto}}</td><td>{{.ServerImpl}} → {{.ClientImpl}}</td><td>{{.CC}}</td><td class="num">{{num .GoodputMbps 2}}</td><td class="num">{{num .MeanSRTTMs 2}}</td><td class="num">{{num .P95SRTTMs 2}}</td><td class="num">{{kB .MaxCwndBytes}}</td><td class="num">{{int .PacketsLost}}</td><td class="num">{{int .ReorderedPackets}}</td><td>{{if .Complete}}{{if deref .Complete}}yes{{else}}<span class="bad">no</span>{{end}}{{else}}–{{end}}</td></tr>
{{end}}</table></div>
<p>JFI over the flows' goodput: <b>{{num .RA.JFI 3}}</b>{{if .RA.JFIActive.Valid}}; {{num .RA.JFIActive 3}} while all flows are active ({{num (index .RA.ActiveWindowS 0) 1}}–{{num (index .RA.ActiveWindowS 1) 1}} s){{end}}.</p>

<h2>Delays</h2>
<p>RTT: the sender's smoothed RTT (TCP: TCP_INFO; QUIC: qlog), sampled in time. One-way delay: the client's read time of each send stamp minus the server's write time (network, queues, PDCP reordering, head-of-line blocking and the sender's wait). Milliseconds.</p>
<div class="wide"><table>
<tr><th rowspan="2">flow</th><th colspan="6">RTT</th><th colspan="6">one-way delay</th></tr>
<tr><th>p50</th><th>p95</th><th>p99</th><th>max</th><th>mean</th><th>from</th><th>p50</th><th>p95</th><th>p99</th><th>max</th><th>mean</th><th>stamps</th></tr>
{{range .RA.Flows}}<tr><td>{{.Name}}</td><td class="num">{{ms .RTTMs "p50"}}</td><td class="num">{{ms .RTTMs "p95"}}</td><td class="num">{{ms .RTTMs "p99"}}</td><td class="num">{{ms .RTTMs "max"}}</td><td class="num">{{ms .RTTMs "mean"}}</td><td>{{.RTTSource}}</td><td class="num">{{ms .OWDMs "p50"}}</td><td class="num">{{ms .OWDMs "p95"}}</td><td class="num">{{ms .OWDMs "p99"}}</td><td class="num">{{ms .OWDMs "max"}}</td><td class="num">{{ms .OWDMs "mean"}}</td><td class="num">{{if .OWDMs}}{{.OWDMs.N}}{{else}}–{{end}}</td></tr>
{{end}}</table></div>

{{if .RA.Links}}<h2>Links</h2>
<table><tr><th>link</th><th>capacity (Mbit/s)</th><th>throughput (Mbit/s)</th><th>utilization</th></tr>
{{range .RA.Links}}<tr><td>{{.Name}} {{.Dir}}</td><td class="num">{{num .CapacityMbps 2}}</td><td class="num">{{num .ThroughputMbps 2}}</td><td class="num">{{pct .Utilization}}</td></tr>
{{end}}</table>{{end}}
{{with .Summary}}{{if .Links}}<h2>Queueing delay per link direction</h2>
<p>How long bytes waited in each rate limiter's queue (` + results.SummaryFile + ` <code>queue_delay_ms</code>; measured from the rate limiters' counters, the derived figure is backlog ÷ rate). Milliseconds.</p>
<table><tr><th>link</th><th>p50</th><th>p95</th><th>p99</th><th>max</th><th>derived p95</th><th>method</th></tr>
{{range .Links}}<tr><td>{{.Name}} {{.Dir}}</td><td class="num">{{ms .QueueDelayMs "p50"}}</td><td class="num">{{ms .QueueDelayMs "p95"}}</td><td class="num">{{ms .QueueDelayMs "p99"}}</td><td class="num">{{ms .QueueDelayMs "max"}}</td><td class="num">{{ms .QueueDelayDerivedMs "p95"}}</td><td>{{.QueueDelayMethod}}</td></tr>
{{end}}</table>{{end}}{{end}}
{{with .Summary}}{{if .Captures}}<h2>Packet captures</h2>
<table><tr><th>file</th><th>packets written</th><th>received by the socket</th><th>dropped (ring full)</th><th>GSO packets split</th></tr>
{{range .Captures}}<tr><td><a href="{{.File}}">{{.File}}</a></td><td class="num">{{.Packets}}</td><td class="num">{{.Received}}</td><td class="num{{if .Dropped}} bad{{end}}">{{.Dropped}}</td><td class="num">{{.Split}}</td></tr>
{{end}}</table>{{end}}{{end}}
{{if .RA.Warnings}}<h2>Warnings</h2><ul>{{range .RA.Warnings}}<li>{{.}}</li>{{end}}</ul>{{end}}

<h2>Figures</h2>
{{range .Figures}}<figure><img class="figure" src="{{.Src}}" alt="{{.Name}}"><figcaption><b>{{.Name}}</b> (plots/{{.Name}}.svg, .png). {{.Caption}}</figcaption></figure>
{{else}}<p>No figures.</p>
{{end}}{{if .Notes}}<p>Left out:</p><ul>{{range .Notes}}<li>{{.}}</li>{{end}}</ul>{{end}}

<h2>What emu printed</h2>
{{if .Terminal}}<p>The run's summary (emu run):</p>
<pre>{{.Terminal}}</pre>{{end}}
<p>The analysis (emu analyze):</p>
<pre>{{.Analysis}}</pre>

<h2>Files</h2>
{{range .Files}}<p>{{.Name}}: {{range $i, $f := .Files}}{{if $i}}, {{end}}<a href="{{$f}}">{{$f}}</a>{{end}}</p>
{{end}}{{if .Tshark}}<p>Decrypting the captures with the run's TLS keys (HTTP/3 for QUIC flows, HTTP/2 for TCP):</p>
<pre>{{range .Tshark}}{{.}}
{{end}}</pre>{{end}}

{{if .Config}}<h2>Configuration</h2>
<details><summary>Every parameter of the run ({{len .Config}})</summary>
<table><tr><th>key</th><th>value</th></tr>
{{range .Config}}<tr><td><code>{{index . 0}}</code></td><td>{{index . 1}}</td></tr>
{{end}}</table></details>{{end}}
<script>
// Lets a headless browser (and a reader) see that every figure decoded.
window.addEventListener("load", function () {
  var imgs = document.querySelectorAll("img.figure"), ok = 0;
  imgs.forEach(function (i) { if (i.complete && i.naturalWidth > 0) ok++; });
  document.body.setAttribute("data-figures", ok + "/" + imgs.length);
});
window.addEventListener("error", function (e) {
  document.body.setAttribute("data-error", String(e.message || e.type));
}, true);
</script>
</body>
</html>
`))
