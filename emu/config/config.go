package config

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dc-emu/emu/emu/fidelity"

	"github.com/dc-emu/emu/emu/units"
)

// Config is one experiment, fully resolved: what every dotted key of
// `emu config` sets. DefaultConfig fills it with the paper's testbed values;
// Validate checks it in one place. Fields carry their unit in the type or the
// doc; the zero value of a field is never silently replaced after Validate.
type Config struct {
	// Scenario names the topology and default flows: "throughput" (one DC
	// client) or "fairness" (a DC client and one client on each link).
	Scenario string
	// Seed drives every random choice of the run (loss, jitter). 0 asks the
	// run to pick one and record it.
	Seed uint64
	// Links are link1 and link2, the two radio legs between the gateways.
	Links [2]Link
	// Trace holds the options that apply to every trace-driven link.
	Trace TraceOptions
	// DC configures the PDCP proxies of Dual Connectivity clients.
	DC DC
	// MPTCP configures the path managers of Multipath TCP flows.
	MPTCP MPTCP
	// PEP is the split-TCP proxy of the server-side gateway (pep.go).
	PEP PEP
	// TCPBufferMax is the largest buffer TCP's autotuning may give a
	// socket in the run's namespaces (tcp.go; 0 leaves the kernel's).
	TCPBufferMax int64
	// Flows are the downloads of the run; each has its own server and uses
	// the client namespace of its path.
	Flows []Flow
	// Observe is what the run records besides results (observe.go).
	Observe Observe
	// Grace is how long a run may last past its flows' planned end before it
	// is stopped as hung.
	Grace time.Duration
	// RTCPUs are the CPUs the real-time packet threads and the Go runtime's
	// monitor are kept on (cpus.go); none: any CPU.
	RTCPUs []int
	// Fidelity holds the thresholds of the run's fidelity verdict
	// (fidelity.* keys, fidelity.go).
	Fidelity fidelity.Thresholds
}

// Link is one emulated radio leg: a shaped direction each way and
// optionally a bandwidth trace that drives its rates.
type Link struct {
	Down, Up Shape
	// Trace is a shipped trace name or a file path; "" or "none" keeps the
	// configured constant rates.
	Trace string
}

// Shape is what one direction of a link does to packets.
type Shape struct {
	// Rate is the capacity in bit/s at the IP layer (full-size packets get
	// exactly this rate; the Ethernet header of the veth is compensated).
	Rate float64
	// Delay is the one-way propagation delay.
	Delay time.Duration
	// Jitter is the delay's standard deviation, absolute or relative.
	Jitter Jitter
	// JitterCorr is the correlation time of order-preserving jitter.
	JitterCorr time.Duration
	// Reorder lets jitter reorder packets (netem-like, i.i.d. delays).
	Reorder bool
	// Loss is the probability that a packet is dropped at random.
	Loss float64
	// Bursts replaces Loss with a burst-loss model when on.
	Bursts Bursts
	// DelayTrace and LossTrace say what drives the delay and the loss:
	// FromLinkTrace, "" for the constants above, or a trace's name or path
	// (impair.go).
	DelayTrace, LossTrace string
	// Queue bounds the rate limiter's queue.
	Queue QueueLimit
}

// Jitter is a standard deviation given either as an absolute duration or as
// a coefficient of variation of the delay; at most one is non-zero.
type Jitter struct {
	Abs time.Duration
	CV  float64
}

// StdDev returns the jitter's standard deviation for a delay.
func (j Jitter) StdDev(delay time.Duration) time.Duration {
	if j.CV > 0 {
		return time.Duration(j.CV * float64(delay))
	}
	return j.Abs
}

func (j Jitter) String() string {
	if j.CV > 0 {
		return units.FormatFraction(j.CV)
	}
	return j.Abs.String()
}

// QueueLimit bounds a queue in packets, bytes or time at the current rate;
// exactly one is set.
type QueueLimit struct {
	Packets int
	Bytes   int64
	Time    time.Duration
}

func (q QueueLimit) String() string {
	switch {
	case q.Packets > 0:
		return fmt.Sprintf("%dp", q.Packets)
	case q.Bytes > 0:
		return units.FormatSize(q.Bytes)
	default:
		return q.Time.String()
	}
}

// TraceOptions transform every trace a run replays.
type TraceOptions struct {
	Offset    time.Duration // skip the trace's first Offset
	Duration  time.Duration // cut the trace after Duration (0 = whole)
	TimeScale float64       // stretch time (2 = half as fast)
	RateScale float64       // multiply every rate
	Loop      bool          // start over at the end
	Up        bool          // also replay the trace's uplink rates
	// Timestamps replays Raca et al. CSV traces by their timestamps instead
	// of one row per second.
	Timestamps bool
	// Window is the averaging window that turns Mahimahi delivery
	// opportunities into rates.
	Window time.Duration
	// Step is how long each value of a delay or loss series lasts.
	Step time.Duration
	// Format forces a trace format instead of detecting it.
	Format string
}

// Flow is one download from a server behind the network-side gateway to a
// client on a path.
type Flow struct {
	Name       string
	Proto      string        // quic or tcp
	ServerImpl string        // quic-go or ngtcp2 (quic); go (tcp)
	ClientImpl string        // quic-go or ngtcp2 (quic); go (tcp)
	CC         string        // congestion control; "" = the implementation's default
	Size       int64         // bytes to download; 0 = unlimited (use Duration)
	Duration   time.Duration // measurement window; 0 = until Size is done
	Start      time.Duration // start time relative to the run's start
	RcvBuf     string        // default or large (QUIC receive buffer)
	AckThresh  int           // QUIC receiver's ACK threshold (ack.go); ngtcp2 clients only away from 2
	Path       string        // dc, link1, link2 or mptcp
	// Workload is the flow's kind and its parameters (workload.go).
	Workload
}

// Paths a client can use.
const (
	PathDC    = "dc"
	PathLink1 = "link1"
	PathLink2 = "link2"
)

// DefaultTrace is the shipped trace `emu run` replays when no --trace is
// given: the paper's LTE trace (Raca et al. 4G dataset, static, operator A).
const DefaultTrace = "StaticA"

// DefaultConfig returns the paper's testbed defaults for a scenario: two
// links of 20 Mbit/s with 10 ms one-way delay and 10% coefficient of
// variation, no loss, DC batch 100 split 1:1, t-Reordering 200 ms, and the
// shipped LTE trace on both links.
func DefaultConfig(scenario string) (Config, error) {
	shape := Shape{
		Rate:       20e6,
		Delay:      10 * time.Millisecond,
		Jitter:     Jitter{CV: 0.10},
		JitterCorr: 20 * time.Millisecond,
		Queue:      QueueLimit{Packets: 1000},
		DelayTrace: FromLinkTrace,
		LossTrace:  FromLinkTrace,
	}
	c := Config{
		Scenario: scenario,
		Links: [2]Link{
			{Down: shape, Up: shape, Trace: DefaultTrace},
			{Down: shape, Up: shape, Trace: DefaultTrace},
		},
		Trace:    TraceOptions{TimeScale: 1, RateScale: 1, Loop: true, Window: 10 * time.Millisecond, Step: 10 * time.Millisecond},
		DC:       defaultDC(),
		MPTCP:    DefaultMPTCP(),
		Grace:    30 * time.Second,
		Fidelity: fidelity.Defaults(),
	}
	c.Observe = defaultObserve()
	base := Flow{Proto: "quic", ServerImpl: "quic-go", ClientImpl: "quic-go", RcvBuf: "default", AckThresh: DefaultAckThresh, Workload: DefaultWorkload()}
	switch scenario {
	case "throughput":
		f := base
		f.Name, f.Path, f.Size = "dc", PathDC, 100e6
		c.Flows = []Flow{f}
	case "fairness":
		for _, p := range []string{PathDC, PathLink1, PathLink2} {
			f := base
			f.Name, f.Path, f.Duration = p, p, 180*time.Second
			c.Flows = append(c.Flows, f)
		}
	default:
		return Config{}, fmt.Errorf("unknown scenario %q (want throughput or fairness)", scenario)
	}
	return c, nil
}

var flowName = regexp.MustCompile(`^[a-z0-9_-]{1,32}$`)

// Validate reports every problem with the configuration at once, each
// naming the dotted key it concerns.
func (c *Config) Validate() error {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", key, fmt.Sprintf(format, args...)))
	}
	for i, l := range c.Links {
		for _, d := range []struct {
			name string
			s    Shape
		}{{"down", l.Down}, {"up", l.Up}} {
			k := fmt.Sprintf("link%d.%s.", i+1, d.name)
			if d.s.Rate <= 0 && !l.Traced(d.name, c.Trace.Up) {
				bad(k+"rate", "must be positive (got %s)", units.FormatRate(d.s.Rate))
			}
			if d.s.Rate > 100e9 {
				bad(k+"rate", "%s is beyond what a veth can carry", units.FormatRate(d.s.Rate))
			}
			if d.s.Jitter.CV < 0 || d.s.Jitter.CV > 1 {
				bad(k+"jitter", "coefficient of variation %s out of range (0%%..100%%)", units.FormatFraction(d.s.Jitter.CV))
			}
			if d.s.Bursts.On() && d.s.Loss > 0 {
				bad(k+"loss_bursts", "%s beside %sloss=%s: one loss model at a time (loss=0 or loss_bursts=none)", d.s.Bursts, k, units.FormatFraction(d.s.Loss))
			}
			if d.s.Bursts.On() && d.s.LossTrace != "" && d.s.LossTrace != FromLinkTrace {
				bad(k+"loss_bursts", "%s beside %sloss_trace=%s: one loss model at a time", d.s.Bursts, k, d.s.LossTrace)
			}
			if d.s.Queue.Packets <= 0 && d.s.Queue.Bytes <= 0 && d.s.Queue.Time <= 0 {
				bad(k+"queue", "must be positive")
			}
		}
	}
	if c.Trace.TimeScale <= 0 {
		bad("trace.time_scale", "must be positive")
	}
	if c.Trace.RateScale <= 0 {
		bad("trace.rate_scale", "must be positive")
	}
	if c.Trace.Window <= 0 {
		bad("trace.window", "must be positive")
	}
	if c.Trace.Step <= 0 {
		bad("trace.step", "must be positive")
	}
	c.validateDC(bad)
	errs = append(errs, c.Observe.validate()...)
	if len(c.Flows) == 0 {
		bad("flows", "a run needs at least one flow")
	}
	seen := map[string]bool{}
	for i, f := range c.Flows {
		k := fmt.Sprintf("flows.%d.", i)
		if !flowName.MatchString(f.Name) {
			bad(k+"name", "%q must match [a-z0-9_-]{1,32}", f.Name)
		}
		if seen[f.Name] {
			bad(k+"name", "%q is used by two flows", f.Name)
		}
		seen[f.Name] = true
		switch f.Path {
		case PathDC, PathLink1, PathLink2, PathMPTCP:
		default:
			bad(k+"path", "want dc, link1, link2 or mptcp (got %q)", f.Path)
		}
		switch f.Proto {
		case "quic":
			if f.ServerImpl == "quic-go" && f.CC != "" && f.CC != "newreno" {
				bad(k+"cc", "quic-go's congestion control is NewReno only (got %q); use server_impl=ngtcp2 for cubic, reno or bbr", f.CC)
			}
			if f.ServerImpl == "ngtcp2" && f.CC != "" && !slices.Contains([]string{"cubic", "reno", "bbr", "bbr2"}, f.CC) {
				bad(k+"cc", "ngtcp2 offers cubic, reno, bbr and bbr2 (got %q)", f.CC)
			}
			for _, impl := range []struct{ key, v string }{{"server_impl", f.ServerImpl}, {"client_impl", f.ClientImpl}} {
				if impl.v != "quic-go" && impl.v != "ngtcp2" {
					bad(k+impl.key, "want quic-go or ngtcp2 for QUIC (got %q)", impl.v)
				}
			}
		case "tcp":
			for _, impl := range []struct{ key, v string }{{"server_impl", f.ServerImpl}, {"client_impl", f.ClientImpl}} {
				if impl.v != "go" {
					bad(k+impl.key, "TCP endpoints are emu's own Go HTTPS endpoints: want go (got %q)", impl.v)
				}
			}
		case ProtoUDP:
			for _, impl := range []struct{ key, v string }{{"server_impl", f.ServerImpl}, {"client_impl", f.ClientImpl}} {
				if impl.v != "go" {
					bad(k+impl.key, "UDP endpoints are emu's own: want go (got %q)", impl.v)
				}
			}
		default:
			bad(k+"proto", "want quic, tcp or udp (got %q)", f.Proto)
		}
		c.validateWorkload(i, f, bad)
		if f.Kind == KindBulk && f.Size <= 0 && f.Duration <= 0 {
			bad(k+"size", "a flow needs a size or a duration")
		}
		if f.RcvBuf != "default" && f.RcvBuf != "large" {
			bad(k+"rcvbuf", "want default or large (got %q)", f.RcvBuf)
		}
		validateAckThresh(i, f, bad)
	}
	errs = append(errs, c.validateFidelity()...)
	errs = append(errs, c.validateMPTCP()...)
	errs = append(errs, c.validatePEP()...)
	errs = append(errs, c.validateTCP()...)
	return errors.Join(errs...)
}

// Traced reports whether a direction's rate ("down" or "up") comes from the
// link's trace; traceUp is TraceOptions.Up.
func (l Link) Traced(dir string, traceUp bool) bool {
	if l.Trace == "" || l.Trace == "none" {
		return false
	}
	return dir == "down" || traceUp
}

// parseRatio parses a ratio "a:b" of link parameters (link.bw_ratio,
// link.delay_ratio) with non-negative a and b, not both 0.
func parseRatio(s string) (a, b float64, err error) {
	as, bs, ok := strings.Cut(s, ":")
	a, errA := strconv.ParseFloat(strings.TrimSpace(as), 64)
	b, errB := strconv.ParseFloat(strings.TrimSpace(bs), 64)
	if !ok || errA != nil || errB != nil || math.IsNaN(a) || math.IsNaN(b) || math.IsInf(a+b, 0) {
		return 0, 0, fmt.Errorf("%q is not a ratio (want a:b, e.g. 1:1 or 9:1)", s)
	}
	if a < 0 || b < 0 || a+b == 0 {
		return 0, 0, fmt.Errorf("%q: both parts must be non-negative and not both zero", s)
	}
	return a, b, nil
}
