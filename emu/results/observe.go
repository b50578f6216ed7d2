package results

import "path"

// Directories and per-flow files of a run directory beside the summary
// (docs/results.md), as slash-separated paths relative to the run
// directory. emu writes them, analysis and the run report read them.
const (
	FlowsDir = "flows"
	QlogDir  = "qlog"
	TLSDir   = "tls"
	PcapDir  = "pcap"
	// LogsDir holds the endpoint processes' stdout and stderr.
	LogsDir = "logs"
)

// RecvLogFile is a flow's receive log (t_s,bytes).
func RecvLogFile(flow string) string { return path.Join(FlowsDir, flow+".csv") }

// KindLogFile is the log of a flow of kind rr, cbr or objects
// (RRHeader, CBRHeader, ObjectsHeader), written by the side that keeps it.
func KindLogFile(flow, kind string) string { return path.Join(FlowsDir, flow+"."+kind+".csv") }

// TCPInfoFile is a TCP flow's TCP_INFO log (TCPInfoHeader), written by its
// server.
func TCPInfoFile(flow string) string { return path.Join(FlowsDir, flow+".tcpinfo.csv") }

// OWDFile is a flow's one-way delay log (OWDHeader), written by its client.
func OWDFile(flow string) string { return path.Join(FlowsDir, flow+".owd.csv") }

// QlogFile is the qlog of one side ("client", "server") of a QUIC flow.
func QlogFile(flow, side string) string { return path.Join(QlogDir, flow+"-"+side+".sqlog") }

// EndpointLogFile is the stderr of one side ("client", "server") of a
// flow's endpoint process.
func EndpointLogFile(flow, side string) string { return path.Join(LogsDir, flow+"-"+side+".log") }

// KeyLogFile is the TLS key log (SSLKEYLOGFILE format) of one side of a
// flow.
func KeyLogFile(flow, side string) string { return path.Join(TLSDir, flow+"-"+side+".keys") }

// PcapFile is the capture of one interface of one node.
func PcapFile(node, iface string) string { return path.Join(PcapDir, node+"-"+iface+".pcapng") }

// CaptureResult is one packet capture of a run (run.pcap): where, into
// which file, and what it counted. Packets are what the file holds (a GSO
// super-packet counts as the wire packets it is written as); Received and
// Dropped are the kernel's counts for the capture socket, where a
// super-packet counts once, so up to 45 times as many wire packets as
// Dropped may be missing from the file.
type CaptureResult struct {
	Node     string `json:"node"`
	Iface    string `json:"iface"`
	File     string `json:"file"`
	Packets  uint64 `json:"packets"`
	Received uint64 `json:"received"`
	Dropped  uint64 `json:"dropped"`
	Split    uint64 `json:"split"`
	Error    string `json:"error,omitempty"`
}
