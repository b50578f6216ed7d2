package emu

import (
	"fmt"
	"net/netip"
	"path/filepath"
	"time"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/endpoint"
	"github.com/dc-emu/emu/emu/network"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/workload"
	"github.com/dc-emu/emu/topo"
)

// flowEndpoints are one flow's server and client.
type flowEndpoints struct {
	server endpoint.ServerConfig
	client endpoint.ClientConfig
}

// runFiles is what a run knows when it compiles its flows: its directory,
// where every flow's logs go (emu/results' layout), the certificate it
// made, and its epoch, the time every log counts from.
type runFiles struct {
	out           string
	cert, certKey string
	epoch         time.Time
}

func (rf runFiles) file(rel string) string { return results.RunDir(rf.out).File(rel) }

// compileFlows turns a validated configuration, its seed chosen, into its
// flows' endpoints, every setting of each filled here and nowhere else, as
// the network compiles its own components' settings (package network).
// It fails only when the working directory, which a sizes file's relative
// name is resolved against, cannot be read.
func compileFlows(cfg *config.Config, rf runFiles) ([]flowEndpoints, error) {
	var out []flowEndpoints
	for i := range cfg.Flows {
		fe, err := compileFlow(cfg, i, rf)
		if err != nil {
			return nil, fmt.Errorf("flows.%d: %w", i, err)
		}
		out = append(out, fe)
	}
	return out, nil
}

// compileFlow is flow i's server and client.
func compileFlow(cfg *config.Config, i int, rf runFiles) (flowEndpoints, error) {
	f := cfg.Flows[i]
	sc := endpoint.ServerConfig{
		Impl: endpoint.Impl(f.ServerImpl), Proto: endpoint.Proto(f.Proto),
		Listen: serverListen(f, i), CC: f.CC, MPTCP: f.Path == config.PathMPTCP,
		ResumeBDP: f.Resume == config.ResumeBDP, ResumeCheck: f.ResumeCheck,
		CertFile: rf.cert, KeyFile: rf.certKey,
	}
	if f.Size > 0 && f.Kind == config.KindBulk {
		sc.Sizes = []int64{f.Size}
	}
	cc := endpoint.ClientConfig{
		Impl: endpoint.Impl(f.ClientImpl), Proto: endpoint.Proto(f.Proto),
		URL: clientURL(f, i), Size: f.Size, Duration: f.Duration,
		RcvBuf: endpoint.RcvBuf(f.RcvBuf), IdleTimeout: cfg.Grace,
		CAFile: rf.cert, T0: rf.epoch,
	}
	switch {
	case f.Kind != config.KindBulk:
		cc.Size = 0
	case cc.Size == 0:
		cc.Size = endpoint.UnboundedSize
	}
	switch {
	case f.Proto == "tcp":
		cc.CC, cc.MPTCP = f.CC, f.Path == config.PathMPTCP
	case f.Proto == "quic" && f.ClientImpl == "ngtcp2":
		cc.CC, cc.AckThresh = f.CC, f.AckThresh
	}
	var err error
	cc.Work, err = clientWork(cfg, i)
	flowLogs(f, cfg.Observe, rf, &sc, &cc)
	return flowEndpoints{server: sc, client: cc}, err
}

// flowLogs names the files flow f's endpoints write, each in its place in
// the run directory: both sides' TLS key logs and, for QUIC, qlogs; the
// receiving side's receive log and the per-kind log of rr, cbr and
// objects flows (a cbr upload's datagrams are the server's to log); the
// one-way delay log of a bulk flow's reader of the stamped body (not
// ngtcp2's client); and for TCP the server's TCP_INFO log, from which an
// MPTCP flow's per-subflow results come too.
func flowLogs(f config.Flow, o config.Observe, rf runFiles, sc *endpoint.ServerConfig, cc *endpoint.ClientConfig) {
	sc.KeyLogFile = rf.file(results.KeyLogFile(f.Name, "server"))
	cc.KeyLogFile = rf.file(results.KeyLogFile(f.Name, "client"))
	if f.Proto == "quic" {
		sc.QlogFile = rf.file(results.QlogFile(f.Name, "server"))
		cc.QlogFile = rf.file(results.QlogFile(f.Name, "client"))
	}
	recv := rf.file(results.RecvLogFile(f.Name))
	var kind string
	if f.Kind != config.KindBulk {
		kind = rf.file(results.KindLogFile(f.Name, f.Kind))
	}
	switch {
	case f.Direction != config.DirUp:
		cc.RecvLog, cc.Work.KindLog = recv, kind
	case f.Kind == config.KindCBR:
		sc.Work = endpoint.ServerWork{RecvLog: recv, KindLog: kind}
	default:
		sc.Work = endpoint.ServerWork{RecvLog: recv}
		cc.Work.KindLog = kind
	}
	if f.Kind == config.KindBulk {
		owd := rf.file(results.OWDFile(f.Name))
		switch {
		case f.Direction == config.DirUp:
			sc.Work.OWDLog = owd
		case f.ClientImpl != string(endpoint.ImplNgtcp2):
			cc.OWDLog = owd
		}
	}
	if f.Proto == "tcp" {
		sc.TCPInfoLog, sc.TCPInfoInterval, sc.T0 = rf.file(results.TCPInfoFile(f.Name)), o.TCPInfoInterval, rf.epoch
	}
}

// clientWork is flow i's client's kind and parameters.
func clientWork(cfg *config.Config, i int) (endpoint.Workload, error) {
	f := cfg.Flows[i]
	w := endpoint.Workload{
		Kind: endpoint.Kind(f.Kind), Up: f.Direction == config.DirUp, Request: f.Request, Response: f.Response,
		Every: f.Interval, Count: f.Count, Packet: f.Packet, Objects: f.Objects.String(), Arrivals: f.Arrivals.String(),
		NewConns: !f.Reuse, Resume: f.Resume,
	}
	switch f.Kind {
	case config.KindCBR:
		w.Every = f.CBRInterval()
	case config.KindObjects:
		// Drawn sizes follow the run's seed, differently for every flow.
		w.Seed = cfg.Seed ^ uint64(i+1)*0x9e3779b97f4a7c15
		if spec := f.Objects; spec.Dist == workload.DistCSV {
			abs, err := filepath.Abs(spec.File)
			if err != nil {
				return w, err
			}
			w.Objects = workload.DistCSV + ":" + abs // the client runs in another directory
		}
	}
	return w, nil
}

// serverListen returns the listening address of flow i's server.
func serverListen(f config.Flow, i int) string {
	return netip.AddrPortFrom(topo.ServerAddr, network.ServerPort(f, i)).String()
}

// clientURL is the URL flow i's client is given.
func clientURL(f config.Flow, i int) string {
	if f.Proto == config.ProtoUDP {
		return "udp://" + serverListen(f, i) + "/"
	}
	size := f.Size
	if size == 0 || f.Kind != config.KindBulk {
		size = endpoint.UnboundedSize
	}
	return endpoint.BytesURL(serverListen(f, i), size)
}
