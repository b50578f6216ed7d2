package cli

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/dc-emu/emu/emu/endpoint"
)

// workFlags are the flags of an endpoint client's kind (endpoint.Workload).
type workFlags struct {
	kind, objects, arrivals, resume, kindLog string
	up, newConns                             bool
	request, response                        int64
	every                                    time.Duration
	count, packet                            int
	seed                                     uint64
}

func (f *workFlags) bind(fs *pflag.FlagSet) {
	fs.StringVar(&f.kind, endpoint.FlagKind, "", "bulk (default), rr, cbr or objects")
	fs.BoolVar(&f.up, endpoint.FlagUp, false, "the client sends (bulk, cbr)")
	fs.Int64Var(&f.request, endpoint.FlagRequest, 0, "rr: request body bytes")
	fs.Int64Var(&f.response, endpoint.FlagResponse, 0, "rr: response body bytes")
	fs.DurationVar(&f.every, endpoint.FlagEvery, 0, "rr: time between transaction starts (0: back to back); cbr: between datagrams")
	fs.IntVar(&f.count, endpoint.FlagCount, 0, "transactions, datagrams or objects (0: for --duration)")
	fs.IntVar(&f.packet, endpoint.FlagPacket, 0, "cbr: UDP payload bytes")
	fs.StringVar(&f.objects, endpoint.FlagObjects, "", "objects: sizes (500kB,1MB), fixed:S, exp:MEAN, lognormal:MEDIAN:SIGMA or csv:FILE")
	fs.StringVar(&f.arrivals, endpoint.FlagArrivals, "", "objects: seq (default) or poisson:MEAN")
	fs.Uint64Var(&f.seed, endpoint.FlagSeed, 0, "objects: seed of the sizes and arrivals drawn")
	fs.BoolVar(&f.newConns, endpoint.FlagNewConns, false, "rr, objects: a new connection for each")
	fs.StringVar(&f.resume, endpoint.FlagResume, "", "rr, objects: off, 1rtt, 0rtt or bdp")
	fs.StringVar(&f.kindLog, endpoint.FlagKindLog, "", "the kind's per-flow log (rr transactions, cbr datagrams, objects)")
}

func (f *workFlags) workload() endpoint.Workload {
	return endpoint.Workload{
		Kind: endpoint.Kind(f.kind), Up: f.up, Request: f.request, Response: f.response, Every: f.every,
		Count: f.count, Packet: f.packet, Objects: f.objects, Arrivals: f.arrivals, Seed: f.seed,
		NewConns: f.newConns, Resume: f.resume, KindLog: f.kindLog,
	}
}

// serverWorkFlags are a server's flags besides downloads (endpoint.ServerWork).
type serverWorkFlags struct{ recvLog, owdLog, kindLog string }

func (f *serverWorkFlags) bind(fs *pflag.FlagSet) {
	fs.StringVar(&f.recvLog, endpoint.FlagRecvLog, "", "CSV file of t_s,bytes for every read of an upload")
	fs.StringVar(&f.owdLog, endpoint.FlagOWDLog, "", "CSV file of the one-way delays of an upload's send stamps")
	fs.StringVar(&f.kindLog, endpoint.FlagKindLog, "", "CSV file of the cbr datagrams an uploading client sent")
}

func (f *serverWorkFlags) work() endpoint.ServerWork {
	return endpoint.ServerWork{RecvLog: f.recvLog, OWDLog: f.owdLog, KindLog: f.kindLog}
}
