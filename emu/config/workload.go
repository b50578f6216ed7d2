package config

import (
	"fmt"
	"strings"
	"time"

	"github.com/dc-emu/emu/pdcp"

	"github.com/dc-emu/emu/emu/units"
	"github.com/dc-emu/emu/emu/workload"
)

// The values of flows.N.kind, flows.N.direction, flows.N.resume and
// flows.N.proto for cbr flows: the workload vocabulary's (emu/workload),
// which the endpoints share.
const (
	KindBulk    = workload.KindBulk
	KindRR      = workload.KindRR
	KindCBR     = workload.KindCBR
	KindObjects = workload.KindObjects

	DirDown = workload.DirDown
	DirUp   = workload.DirUp

	ResumeOff  = workload.ResumeOff
	Resume1RTT = workload.Resume1RTT
	Resume0RTT = workload.Resume0RTT
	ResumeBDP  = workload.ResumeBDP

	ProtoUDP = workload.ProtoUDP
)

// Workload is what a flow does beyond where it goes: its kind and the
// kind's parameters. The zero value of each field is its default as
// DefaultWorkload gives it, except Kind and Direction, which Validate
// requires.
type Workload struct {
	// Kind is KindBulk, KindRR, KindCBR or KindObjects.
	Kind string
	// Direction is DirDown or DirUp (bulk and cbr).
	Direction string
	// Request and Response are the bytes of each rr transaction's request
	// body and response body.
	Request, Response int64
	// Interval is the time between the starts of rr transactions (0:
	// back to back, each after the previous one's response) or between
	// cbr datagrams (0: DefaultCBRInterval, unless Rate is set).
	Interval time.Duration
	// Count is the number of rr transactions, cbr datagrams or objects;
	// 0 runs for the flow's duration (objects of a list: the list once).
	Count int
	// Packet is the UDP payload of a cbr datagram in bytes.
	Packet int
	// Rate is a cbr flow's payload rate in bit/s; 0 means Interval gives
	// the pace. Only one of the two may be set.
	Rate float64
	// Objects is an objects flow's sizes: a list, a distribution or a CSV
	// file, parsed when the key is set (ParseObjects); the zero spec is
	// none, for flows of other kinds.
	Objects workload.ObjectSpec
	// Arrivals is when objects start: seq (each after the previous one
	// completed) or poisson:MEAN, parsed when the key is set
	// (ParseArrivals).
	Arrivals workload.Arrivals
	// Reuse fetches every object or transaction over one connection;
	// false opens a new connection for each.
	Reuse bool
	// Resume is ResumeOff, Resume1RTT, Resume0RTT or ResumeBDP.
	Resume string
	// ResumeCheck (resume bdp) falls back to a normal start when a
	// measured connection's first round trip is acknowledged at less than
	// half the remembered delivery rate.
	ResumeCheck bool
	// Scheduler, Batch, Split and Active steer this flow's packets through
	// the PDCP transmit proxy by their own scheduler; "", 0 and the zero
	// Split take dc.scheduler, dc.batch, dc.split and dc.active. Active is
	// a link number, 1 or 2. A flow with its own scheduler is its own PDCP
	// entity (docs/design.md, "Per-flow steering"); Config.FlowScheduler
	// is its pdcp configuration.
	Scheduler string
	Batch     int
	Split     pdcp.Split
	Active    int
}

// DefaultWorkload is the workload of a default flow: a bulk download, and
// the parameters the other kinds start from (100-byte transactions,
// VoIP-sized datagrams, sequential objects over one connection).
func DefaultWorkload() Workload {
	return Workload{
		Kind: KindBulk, Direction: DirDown, Request: 100, Response: 100, Packet: 160,
		Arrivals: workload.Sequential(), Reuse: true, Resume: ResumeOff,
	}
}

// Steered reports whether the flow has its own PDCP scheduler.
func (w Workload) Steered() bool {
	return w.Scheduler != "" || w.Batch != 0 || w.Split != (pdcp.Split{}) || w.Active != 0
}

// CBRInterval is the time between a cbr flow's datagrams: the time one
// Packet takes at Rate, else Interval, else DefaultCBRInterval.
func (w Workload) CBRInterval() time.Duration {
	switch {
	case w.Rate > 0:
		return time.Duration(float64(w.Packet) * 8 / w.Rate * 1e9)
	case w.Interval > 0:
		return w.Interval
	}
	return workload.DefaultCBRInterval
}

// workloadFields are the per-flow keys of the kinds (flows.N.kind, …),
// listed after the flow's own keys.
var workloadFields = []flowField{
	{"kind", "", "bulk (download or upload), rr (request/response), cbr (UDP datagrams at a constant rate; sets proto=udp) or objects",
		func(f *Flow) string { return f.Kind },
		func(f *Flow, v string) error {
			if v == KindCBR && f.Kind != KindCBR {
				if f.Proto != ProtoUDP {
					f.Proto, f.ServerImpl, f.ClientImpl = ProtoUDP, "go", "go"
				}
			}
			f.Kind = v
			return nil
		}},
	stringField("direction", "", "down (the server sends) or up (the client sends; bulk and cbr)",
		func(f *Flow) *string { return &f.Direction }),
	sizeField("request", "rr: request body of each transaction",
		func(f *Flow) *int64 { return &f.Request }),
	sizeField("response", "rr: response body of each transaction",
		func(f *Flow) *int64 { return &f.Response }),
	durationField("interval", "rr: time between transaction starts (0 = back to back); cbr: time between datagrams (0 = 20ms unless rate is set)",
		func(f *Flow) *time.Duration { return &f.Interval }),
	intField("count", "", "rr transactions, cbr datagrams or objects (0 = for the flow's duration; objects of a list: the list once)",
		func(f *Flow) *int { return &f.Count }),
	{"packet", "bytes", "cbr: UDP payload of each datagram",
		func(f *Flow) string { return units.FormatSize(int64(f.Packet)) },
		func(f *Flow, v string) error {
			n, err := units.ParseSize(v)
			if err == nil && n > 1<<20 {
				err = fmt.Errorf("%q: larger than any datagram", v)
			}
			f.Packet = int(n)
			return err
		}},
	rateField("rate", "cbr: payload rate (instead of interval; 0 = use interval)",
		func(f *Flow) *float64 { return &f.Rate }),
	{"objects", "", "objects: sizes as a list (500kB,1MB), fixed:SIZE, exp:MEAN, lognormal:MEDIAN:SIGMA, or a CSV file of sizes (csv:FILE or FILE.csv) drawn at random",
		func(f *Flow) string { return f.Objects.String() },
		func(f *Flow, v string) (err error) {
			if strings.TrimSpace(v) == "" {
				f.Objects = workload.ObjectSpec{} // none; Validate requires some of an objects flow
				return nil
			}
			f.Objects, err = workload.ParseObjects(v)
			return err
		}},
	{"arrivals", "", "objects: seq (each after the previous one) or poisson:MEAN (mean time between starts, e.g. poisson:500ms or poisson:2/s)",
		func(f *Flow) string { return f.Arrivals.String() },
		func(f *Flow, v string) (err error) { f.Arrivals, err = workload.ParseArrivals(v); return }},
	boolField("reuse", "rr, objects: one connection for all (true) or a new connection each (false)",
		func(f *Flow) *bool { return &f.Reuse }),
	stringField("resume", "", "rr, objects: off, 1rtt (a first connection gets a session ticket, the measured ones resume), 0rtt (QUIC 0-RTT; quic-go) or bdp (TCP: the measured connections also start with the first one's window and delivery rate)",
		func(f *Flow) *string { return &f.Resume }),
	boolField("resume_check", "resume=bdp: fall back to a normal start when a connection's first round trip is acknowledged at under half the remembered rate",
		func(f *Flow) *bool { return &f.ResumeCheck }),
	stringField("scheduler", "", "DC flows: PDCP scheduler for this flow's packets (its own PDCP entity); empty = dc.scheduler",
		func(f *Flow) *string { return &f.Scheduler }),
	intField("batch", "packets", "DC flows with their own scheduler: batch size (0 = dc.batch)",
		func(f *Flow) *int { return &f.Batch }),
	splitField("split", "DC flows with their own scheduler: link1:link2 ratio (empty = dc.split)",
		func(f *Flow) *pdcp.Split { return &f.Split }),
	{"active", "", "DC flows with their own scheduler: active link of active-standby (empty = dc.active)",
		func(f *Flow) string { return linkName(f.Active) },
		func(f *Flow, v string) (err error) { f.Active, err = parseLink(v); return }},
}
