package endpoint

import (
	"context"
	"errors"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/workload"
)

// resumeFirst runs the first connection of a flow that resumes (nothing
// otherwise) and starts the flow's ResumeResult with it. With resume bdp
// the first connection fetches size bytes, as a measured one would, so
// the path state it leaves is that of such a transfer; otherwise one.
func resumeFirst(ctx context.Context, c *connector, work *results.FlowWorkload, size int64) error {
	if c.tickets == nil {
		return nil
	}
	if c.cfg.Work.resume() != workload.ResumeBDP || size < 1 {
		size = 1
	}
	hs, fct, path, err := c.warmUp(ctx, size)
	if err != nil {
		return describeWork(err, c.cfg, c.addr, 0)
	}
	work.Resume = &results.ResumeResult{Mode: c.cfg.Work.Resume,
		FirstHandshakeMs: results.Round3(msDur(hs)), FirstFCTS: results.Round6(fct.Seconds()), Path: path}
	return nil
}

// noteFallback counts a measured connection that fell back from the
// resumed path state.
func noteFallback(r *results.ResumeResult) {
	if r != nil && r.Path != nil {
		r.Path.Fallbacks++
	}
}

// describeWork rewrites the errors of a workload client's connections as
// the reasons a run shows; got is how many bytes had arrived.
func describeWork(err error, cfg *ClientConfig, addr string, got int64) error {
	if err == nil || errors.Is(err, errInterrupted) {
		return err
	}
	if cfg.Proto == ProtoQUIC {
		var idle *quic.IdleTimeoutError
		return describeQUIC(err, addr, cfg, got > 0 || !errors.As(err, &idle), got)
	}
	return describeNet(err, addr, got)
}

func msDur(d time.Duration) float64 { return float64(d) / 1e6 }
