package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// shapeField is one per-direction link parameter; it becomes a Param once
// it knows which Shape it addresses.
type shapeField struct {
	name, unit, doc string
	get             func(s *Shape) string
	set             func(s *Shape, v string) error
}

func (f shapeField) param(prefix string, shape func(*Config) *Shape) Param {
	return Param{prefix + f.name, f.unit, f.doc,
		func(c *Config) string { return f.get(shape(c)) },
		func(c *Config, v string) error { return f.set(shape(c), v) }}
}

var shapeFields = []shapeField{
	{"rate", "bit/s", "capacity at the IP layer (e.g. 20mbit); set on a direction the default trace drives, it makes the link constant-rate",
		func(s *Shape) string { return FormatRate(s.Rate) },
		func(s *Shape, v string) (err error) { s.Rate, err = ParseRate(v); return }},
	{"delay", "duration", "one-way delay",
		func(s *Shape) string { return s.Delay.String() },
		func(s *Shape, v string) (err error) { s.Delay, err = ParseDuration(v); return }},
	{"jitter", "duration or %", "delay standard deviation: absolute (1ms) or coefficient of variation (10%)",
		func(s *Shape) string { return s.Jitter.String() },
		func(s *Shape, v string) error {
			if strings.HasSuffix(v, "%") {
				cv, err := ParseFraction(v)
				s.Jitter = Jitter{CV: cv}
				return err
			}
			d, err := ParseDuration(v)
			s.Jitter = Jitter{Abs: d}
			return err
		}},
	{"jitter_corr", "duration", "correlation time of order-preserving jitter",
		func(s *Shape) string { return s.JitterCorr.String() },
		func(s *Shape, v string) (err error) { s.JitterCorr, err = ParseDuration(v); return }},
	{"reorder", "bool", "let jitter reorder packets (independent delays, as netem does)",
		func(s *Shape) string { return strconv.FormatBool(s.Reorder) },
		func(s *Shape, v string) (err error) { s.Reorder, err = parseBool(v); return }},
	{"loss", "%", "random loss probability",
		func(s *Shape) string { return FormatFraction(s.Loss) },
		func(s *Shape, v string) (err error) { s.Loss, err = ParseFraction(v); return }},
	{"queue", "packets (1000p), bytes (1MB) or time (50ms)", "rate limiter queue limit; time is converted at the current rate",
		func(s *Shape) string { return s.Queue.String() },
		func(s *Shape, v string) (err error) { s.Queue, err = parseQueue(v); return }},
}

// flowField is one per-flow parameter.
type flowField struct {
	name, unit, doc string
	get             func(f *Flow) string
	set             func(f *Flow, v string) error
}

func (f flowField) param(prefix string, i int) Param {
	return Param{prefix + f.name, f.unit, f.doc,
		func(c *Config) string { return f.get(&c.Flows[i]) },
		func(c *Config, v string) error { return f.set(&c.Flows[i], v) }}
}

var flowFields = []flowField{
	{"name", "", "flow name in results ([a-z0-9_-])",
		func(f *Flow) string { return f.Name },
		func(f *Flow, v string) error { f.Name = v; return nil }},
	{"path", "", "dc, link1, link2 or mptcp (Multipath TCP over both links; proto=tcp)",
		func(f *Flow) string { return f.Path },
		func(f *Flow, v string) error { f.Path = v; return nil }},
	{"proto", "", "quic, tcp or udp (cbr flows; sets both implementations to that protocol's default)",
		func(f *Flow) string { return f.Proto },
		func(f *Flow, v string) error {
			if v != f.Proto {
				switch v {
				case "tcp", ProtoUDP:
					f.ServerImpl, f.ClientImpl = "go", "go"
				case "quic":
					f.ServerImpl, f.ClientImpl = "quic-go", "quic-go"
				}
			}
			f.Proto = v
			return nil
		}},
	{"server_impl", "", "quic-go or ngtcp2 for QUIC; go for TCP",
		func(f *Flow) string { return f.ServerImpl },
		func(f *Flow, v string) error { f.ServerImpl = v; return nil }},
	{"client_impl", "", "quic-go or ngtcp2 for QUIC; go for TCP",
		func(f *Flow) string { return f.ClientImpl },
		func(f *Flow, v string) error { f.ClientImpl = v; return nil }},
	{"cc", "", "congestion control: reno, cubic, bbr (TCP, ngtcp2); quic-go has newreno only; empty = default",
		func(f *Flow) string { return f.CC },
		func(f *Flow, v string) error { f.CC = v; return nil }},
	{"size", "bytes", "bytes to download (0 = unlimited, needs a duration)",
		func(f *Flow) string { return FormatSize(f.Size) },
		func(f *Flow, v string) (err error) { f.Size, err = ParseSize(v); return }},
	{"duration", "duration", "measurement window (0 = until size is downloaded)",
		func(f *Flow) string { return f.Duration.String() },
		func(f *Flow, v string) (err error) { f.Duration, err = ParseDuration(v); return }},
	{"start", "duration", "start time after the run's start",
		func(f *Flow) string { return f.Start.String() },
		func(f *Flow, v string) (err error) { f.Start, err = ParseDuration(v); return }},
	{"rcvbuf", "", "QUIC receive buffer: default or large (the paper's modified buffer)",
		func(f *Flow) string { return f.RcvBuf },
		func(f *Flow, v string) error { f.RcvBuf = v; return nil }},
}

func durationParam(key, doc string, field func(*Config) *time.Duration) Param {
	return Param{key, "duration", doc,
		func(c *Config) string { return field(c).String() },
		func(c *Config, v string) (err error) { *field(c), err = ParseDuration(v); return }}
}

func floatParam(key, unit, doc string, field func(*Config) *float64) Param {
	return Param{key, unit, doc,
		func(c *Config) string { return strconv.FormatFloat(*field(c), 'g', -1, 64) },
		func(c *Config, v string) error {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return fmt.Errorf("%q is not a number", v)
			}
			*field(c) = f
			return nil
		}}
}

func intParam(key, unit, doc string, field func(*Config) *int) Param {
	return Param{key, unit, doc,
		func(c *Config) string { return strconv.Itoa(*field(c)) },
		func(c *Config, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil {
				return fmt.Errorf("%q is not a whole number", v)
			}
			*field(c) = n
			return nil
		}}
}

func boolParam(key, doc string, field func(*Config) *bool) Param {
	return Param{key, "bool", doc,
		func(c *Config) string { return strconv.FormatBool(*field(c)) },
		func(c *Config, v string) (err error) { *field(c), err = parseBool(v); return }}
}

func stringParam(key, doc string, field func(*Config) *string) Param {
	return Param{key, "", doc,
		func(c *Config) string { return *field(c) },
		func(c *Config, v string) error { *field(c) = v; return nil }}
}

func parseBool(v string) (bool, error) {
	switch strings.ToLower(v) {
	case "1", "true", "yes", "on":
		return true, nil
	case "0", "false", "no", "off":
		return false, nil
	}
	return false, fmt.Errorf("%q is not a boolean (want true or false)", v)
}

// parseQueue parses "1000p" (packets), "1MB" (bytes) or "50ms" (time).
func parseQueue(v string) (QueueLimit, error) {
	if n, ok := strings.CutSuffix(v, "p"); ok {
		if p, err := strconv.Atoi(n); err == nil && p > 0 {
			return QueueLimit{Packets: p}, nil
		}
	}
	if d, err := time.ParseDuration(v); err == nil && d > 0 {
		return QueueLimit{Time: d}, nil
	}
	if b, err := ParseSize(v); err == nil && b > 0 {
		return QueueLimit{Bytes: b}, nil
	}
	return QueueLimit{}, fmt.Errorf("%q is not a queue limit (want packets 1000p, bytes 1MB or time 50ms, positive)", v)
}
