package endpoint

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/workload"
)

// Kind is what a client does (package config's flow kinds).
type Kind string

const (
	KindBulk    Kind = workload.KindBulk    // one download or upload
	KindRR      Kind = workload.KindRR      // request/response transactions
	KindCBR     Kind = workload.KindCBR     // UDP datagrams at a constant rate
	KindObjects Kind = workload.KindObjects // a set of objects, each timed
)

// ProtoUDP is the transport of cbr flows.
const ProtoUDP Proto = workload.ProtoUDP

// Workload is what a client does beyond a download of one URL: its kind
// and the kind's parameters. The zero value is a bulk download. A field
// that does not apply to the kind is ignored.
type Workload struct {
	// Kind is empty (a bulk download), KindBulk, KindRR, KindCBR or
	// KindObjects.
	Kind Kind
	// Up makes a bulk or cbr flow send from the client to the server.
	Up bool
	// Request and Response are the body bytes of every rr transaction.
	Request, Response int64
	// Every is the time between rr transaction starts (0: back to back)
	// or between cbr datagrams (required).
	Every time.Duration
	// Count is how many transactions, datagrams or objects; 0 means until
	// ClientConfig.Duration ends (objects of a list: the list once).
	Count int
	// Packet is the UDP payload of each cbr datagram, CBRHeaderSize to
	// MaxCBRPacket bytes.
	Packet int
	// Objects and Arrivals are an objects flow's sizes and start times in
	// the grammar of flows.N.objects and flows.N.arrivals; Seed draws them.
	Objects, Arrivals string
	Seed              uint64
	// NewConns opens a new connection for every transaction or object
	// instead of reusing one.
	NewConns bool
	// Resume is "" or "off", "1rtt", "0rtt" or "bdp" (rr and objects): a
	// first connection obtains a session ticket and every measured
	// connection resumes it, with 0-RTT (quic-go only) the request in its
	// first flight, with bdp (TCP) also the path state the server measured
	// on the first connection (bdp.go).
	Resume string
	// KindLog, if set, receives the kind's per-flow log: rr transactions
	// (results.RRHeader), cbr datagrams received (results.CBRHeader) or
	// objects (results.ObjectsHeader).
	KindLog string
}

func (w *Workload) bulkDown() bool { return (w.Kind == "" || w.Kind == KindBulk) && !w.Up }

func (w *Workload) resume() string {
	if w.Resume == "" {
		return workload.ResumeOff
	}
	return w.Resume
}

// validate checks the workload against the client's implementation and
// protocol.
func (w *Workload) validate(c *ClientConfig) error {
	if w.Kind == "" {
		w.Kind = KindBulk
	}
	if c.Impl == ImplNgtcp2 && !w.bulkDown() {
		return fmt.Errorf("kind %s (up %v): the ngtcp2 client only downloads", w.Kind, w.Up)
	}
	if (w.Kind == KindCBR) != (c.Proto == ProtoUDP) {
		return fmt.Errorf("kind %s over %s: cbr flows, and only they, are plain UDP", w.Kind, c.Proto)
	}
	if err := workload.CheckResume(string(w.Kind), w.Resume, string(c.Proto)); err != nil {
		return fmt.Errorf("resume %s: %w", w.resume(), err)
	}
	switch w.Kind {
	case KindBulk:
	case KindRR:
		if err := workload.CheckTransaction(w.Request); err != nil {
			return fmt.Errorf("rr request: %w", err)
		}
		if err := workload.CheckTransaction(w.Response); err != nil {
			return fmt.Errorf("rr response: %w", err)
		}
		if w.Every < 0 {
			return fmt.Errorf("rr interval %v: negative", w.Every)
		}
	case KindCBR:
		if err := workload.CheckCBRPacket(w.Packet); err != nil {
			return fmt.Errorf("cbr packet: %w", err)
		}
		if err := workload.CheckCBRInterval(w.Packet, w.Every); err != nil {
			return fmt.Errorf("cbr interval: %w", err)
		}
	case KindObjects:
		if _, _, err := parseObjectWork(w, c.Duration); err != nil {
			return err
		}
	default:
		return fmt.Errorf("kind %q: want bulk, rr, cbr or objects", w.Kind)
	}
	if w.Count < 0 {
		return fmt.Errorf("count %d: negative", w.Count)
	}
	if w.Kind != KindObjects { // parseObjectWork checked them with their sizes
		if err := workload.CheckEnd(string(w.Kind), workload.ObjectSpec{}, w.Count, c.Duration); err != nil {
			return fmt.Errorf("%s: %w", w.Kind, err)
		}
	}
	return nil
}

// parseObjectWork parses an objects client's sizes and arrivals.
func parseObjectWork(w *Workload, duration time.Duration) (workload.ObjectSpec, workload.Arrivals, error) {
	spec, err := workload.ParseObjects(w.Objects)
	if err != nil {
		return spec, workload.Arrivals{}, fmt.Errorf("objects: %w", err)
	}
	arrivals := workload.Arrivals{Kind: workload.ArrivalsSeq}
	if w.Arrivals != "" {
		if arrivals, err = workload.ParseArrivals(w.Arrivals); err != nil {
			return spec, arrivals, fmt.Errorf("arrivals: %w", err)
		}
	}
	if err := workload.CheckEnd(workload.KindObjects, spec, max(w.Count, 0), duration); err != nil {
		return spec, arrivals, fmt.Errorf("objects: %w", err)
	}
	return spec, arrivals, nil
}

// ServerWork is what a server does besides serving downloads. An HTTP
// server also takes uploads (POST /upload) and rr transactions (/rr/N); a
// UDP server (ProtoUDP) answers cbr clients: it sends the datagrams a
// client's hello asks for, and receives the datagrams of an uploading
// client, reporting what arrived when the client asks.
type ServerWork struct {
	// RecvLog and OWDLog, if set, receive the "t_s,bytes" rows and the
	// one-way delays of the send stamps of the server's first upload
	// (later uploads get numbered names, like qlog files).
	RecvLog, OWDLog string
	// KindLog, if set, receives the datagrams a UDP server received from
	// an uploading cbr client (results.CBRHeader).
	KindLog string
}

func (w *ServerWork) validate(c *ServerConfig) error {
	if c.Proto == ProtoUDP && c.Impl != ImplGo {
		return fmt.Errorf("impl %s: the UDP (cbr) server is %q", c.Impl, ImplGo)
	}
	if c.Impl == ImplNgtcp2 && (w.RecvLog != "" || w.OWDLog != "") {
		return errors.New("recv-log and owd-log: the ngtcp2 server takes no uploads")
	}
	return nil
}

// runWorkload runs a client of any kind but a plain download.
func runWorkload(ctx context.Context, cfg *ClientConfig, m *meter) (Result, error) {
	if cfg.Work.Kind == KindCBR {
		return runCBR(ctx, cfg, m)
	}
	c, err := newConnector(cfg)
	if err != nil {
		r, err := m.finish(time.Now(), endError, unknownSize, err)
		return r, err
	}
	var r Result
	switch cfg.Work.Kind {
	case KindRR:
		r, err = runRR(ctx, cfg, m, c)
	case KindObjects:
		r, err = runObjects(ctx, cfg, m, c)
	default:
		r, err = runUpload(ctx, cfg, m, c)
	}
	if cerr := c.close(); cerr != nil && err == nil {
		err, r.Complete = cerr, false
	}
	if r.Work == nil {
		r.Work = &results.FlowWorkload{Kind: string(KindBulk), Direction: "up"}
	}
	return r, err
}
