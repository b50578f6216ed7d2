package emu

import (
	"fmt"
	"net/netip"
	"path/filepath"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/endpoint"
	"github.com/dc-emu/emu/emu/network"
	"github.com/dc-emu/emu/emu/workload"
	"github.com/dc-emu/emu/topo"
)

// flowEndpoints are one flow's server and client.
type flowEndpoints struct {
	server endpoint.ServerConfig
	client endpoint.ClientConfig
}

// compileFlows turns a validated configuration, its seed chosen, into its
// flows' endpoints, as the network compiles its own components' settings
// (package network): the run adds the files and times it knows when it
// starts them. It fails only when the working directory, which a sizes
// file's relative name is resolved against, cannot be read.
func compileFlows(cfg *config.Config) ([]flowEndpoints, error) {
	var out []flowEndpoints
	for i := range cfg.Flows {
		fe, err := compileFlow(cfg, i)
		if err != nil {
			return nil, fmt.Errorf("flows.%d: %w", i, err)
		}
		out = append(out, fe)
	}
	return out, nil
}

// compileFlow is flow i's server and client, without the run's files.
func compileFlow(cfg *config.Config, i int) (flowEndpoints, error) {
	f := cfg.Flows[i]
	sc := endpoint.ServerConfig{
		Impl: endpoint.Impl(f.ServerImpl), Proto: endpoint.Proto(f.Proto),
		Listen: serverListen(f, i), CC: f.CC, MPTCP: f.Path == config.PathMPTCP,
		ResumeBDP: f.Resume == config.ResumeBDP, ResumeCheck: f.ResumeCheck,
	}
	if f.Size > 0 && f.Kind == config.KindBulk {
		sc.Sizes = []int64{f.Size}
	}
	cc := endpoint.ClientConfig{
		Impl: endpoint.Impl(f.ClientImpl), Proto: endpoint.Proto(f.Proto),
		URL: clientURL(f, i), Size: f.Size, Duration: f.Duration,
		RcvBuf: endpoint.RcvBuf(f.RcvBuf), IdleTimeout: cfg.Grace,
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
		cc.CC = f.CC
	}
	var err error
	cc.Work, err = clientWork(cfg, i)
	return flowEndpoints{server: sc, client: cc}, err
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
