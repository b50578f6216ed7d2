package endpoint

import "strconv"

// Flags of the workload kinds (Workload, ServerWork); the CLI defines them
// with these names.
const (
	FlagKind     = "kind"
	FlagUp       = "up"
	FlagRequest  = "request"
	FlagResponse = "response"
	FlagEvery    = "every"
	FlagCount    = "count"
	FlagPacket   = "packet"
	FlagObjects  = "objects"
	FlagArrivals = "arrivals"
	FlagSeed     = "seed"
	FlagNewConns = "new-conns"
	FlagResume   = "resume"
	FlagKindLog  = "kind-log"
)

// work adds the flags of a client's workload.
func (a *argList) work(w Workload) {
	if w.Kind == "" || w.Kind == KindBulk && !w.Up {
		return
	}
	a.str(FlagKind, string(w.Kind))
	a.flag(FlagUp, w.Up)
	switch w.Kind {
	case KindRR:
		a.str(FlagRequest, strconv.FormatInt(w.Request, 10))
		a.str(FlagResponse, strconv.FormatInt(w.Response, 10))
	case KindCBR:
		a.int(FlagPacket, int64(w.Packet))
	case KindObjects:
		a.str(FlagObjects, w.Objects)
		a.str(FlagArrivals, w.Arrivals)
		if w.Seed != 0 {
			a.str(FlagSeed, strconv.FormatUint(w.Seed, 10))
		}
	}
	a.dur(FlagEvery, w.Every)
	a.int(FlagCount, int64(w.Count))
	a.flag(FlagNewConns, w.NewConns)
	if w.Resume != "" && w.Resume != "off" {
		a.str(FlagResume, w.Resume)
	}
	a.str(FlagKindLog, w.KindLog)
}

// serverWork adds the flags of what a server does besides downloads.
func (a *argList) serverWork(w ServerWork) {
	a.str(FlagRecvLog, w.RecvLog)
	a.str(FlagOWDLog, w.OWDLog)
	a.str(FlagKindLog, w.KindLog)
}
