package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dc-emu/emu/emu/units"
)

// field is one parameter of a T (the Config itself, a link direction's
// Shape or a Flow) as text: its name, unit and doc, and how it is read and
// set. The constructors below hold the rule for each kind of value, so a
// table entry only names the value.
type field[T any] struct {
	name, unit, doc string
	get             func(t *T) string
	set             func(t *T, v string) error
}

// param makes f a Param keyed prefix+name on the T that at finds in a
// Config.
func (f field[T]) param(prefix string, at func(*Config) *T) Param {
	return Param{prefix + f.name, f.unit, f.doc,
		func(c *Config) string { return f.get(at(c)) },
		func(c *Config, v string) error { return f.set(at(c), v) }}
}

// shapeField is one per-direction link parameter; flowField one per-flow
// parameter.
type (
	shapeField = field[Shape]
	flowField  = field[Flow]
)

func stringField[T any](name, unit, doc string, p func(*T) *string) field[T] {
	return field[T]{name, unit, doc,
		func(t *T) string { return *p(t) },
		func(t *T, v string) error { *p(t) = v; return nil }}
}

func boolField[T any](name, doc string, p func(*T) *bool) field[T] {
	return field[T]{name, "bool", doc,
		func(t *T) string { return strconv.FormatBool(*p(t)) },
		func(t *T, v string) (err error) { *p(t), err = parseBool(v); return }}
}

func intField[T any](name, unit, doc string, p func(*T) *int) field[T] {
	return field[T]{name, unit, doc,
		func(t *T) string { return strconv.Itoa(*p(t)) },
		func(t *T, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil {
				return fmt.Errorf("%q is not a whole number", v)
			}
			*p(t) = n
			return nil
		}}
}

func floatField[T any](name, unit, doc string, p func(*T) *float64) field[T] {
	return field[T]{name, unit, doc,
		func(t *T) string { return strconv.FormatFloat(*p(t), 'g', -1, 64) },
		func(t *T, v string) error {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return fmt.Errorf("%q is not a number", v)
			}
			*p(t) = f
			return nil
		}}
}

func durationField[T any](name, doc string, p func(*T) *time.Duration) field[T] {
	return field[T]{name, "duration", doc,
		func(t *T) string { return p(t).String() },
		func(t *T, v string) (err error) { *p(t), err = units.ParseDuration(v); return }}
}

func fractionField[T any](name, doc string, p func(*T) *float64) field[T] {
	return field[T]{name, "%", doc,
		func(t *T) string { return units.FormatFraction(*p(t)) },
		func(t *T, v string) (err error) { *p(t), err = units.ParseFraction(v); return }}
}

func rateField[T any](name, doc string, p func(*T) *float64) field[T] {
	return field[T]{name, "bit/s", doc,
		func(t *T) string { return units.FormatRate(*p(t)) },
		func(t *T, v string) (err error) { *p(t), err = units.ParseRate(v); return }}
}

func sizeField[T any](name, doc string, p func(*T) *int64) field[T] {
	return field[T]{name, "bytes", doc,
		func(t *T) string { return units.FormatSize(*p(t)) },
		func(t *T, v string) (err error) { *p(t), err = units.ParseSize(v); return }}
}

var shapeFields = []shapeField{
	rateField("rate", "capacity at the IP layer (e.g. 20mbit); set on a direction the default trace drives, it makes the link constant-rate",
		func(s *Shape) *float64 { return &s.Rate }),
	{"jitter", "duration or %", "delay standard deviation: absolute (1ms) or coefficient of variation (10%)",
		func(s *Shape) string { return s.Jitter.String() },
		func(s *Shape, v string) error {
			if strings.HasSuffix(v, "%") {
				cv, err := units.ParseFraction(v)
				s.Jitter = Jitter{CV: cv}
				return err
			}
			d, err := units.ParseDuration(v)
			s.Jitter = Jitter{Abs: d}
			return err
		}},
	durationField("jitter_corr", "correlation time of order-preserving jitter",
		func(s *Shape) *time.Duration { return &s.JitterCorr }),
	boolField("reorder", "let jitter reorder packets (independent delays, as netem does)",
		func(s *Shape) *bool { return &s.Reorder }),
	{"queue", "packets (1000p), bytes (1MB) or time (50ms)", "rate limiter queue limit; time is converted at the current rate",
		func(s *Shape) string { return s.Queue.String() },
		func(s *Shape, v string) (err error) { s.Queue, err = parseQueue(v); return }},
}

var flowFields = []flowField{
	stringField("name", "", "flow name in results ([a-z0-9_-])",
		func(f *Flow) *string { return &f.Name }),
	stringField("path", "", "dc, link1, link2 or mptcp (Multipath TCP over both links; proto=tcp)",
		func(f *Flow) *string { return &f.Path }),
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
	stringField("server_impl", "", "quic-go or ngtcp2 for QUIC; go for TCP",
		func(f *Flow) *string { return &f.ServerImpl }),
	stringField("client_impl", "", "quic-go or ngtcp2 for QUIC; go for TCP",
		func(f *Flow) *string { return &f.ClientImpl }),
	stringField("cc", "", "congestion control: reno, cubic, bbr (TCP, ngtcp2); quic-go has newreno only; empty = default",
		func(f *Flow) *string { return &f.CC }),
	sizeField("size", "bytes to download (0 = unlimited, needs a duration)",
		func(f *Flow) *int64 { return &f.Size }),
	durationField("duration", "measurement window (0 = until size is downloaded)",
		func(f *Flow) *time.Duration { return &f.Duration }),
	durationField("start", "start time after the run's start",
		func(f *Flow) *time.Duration { return &f.Start }),
	stringField("rcvbuf", "", "QUIC receive buffer: default or large (the paper's modified buffer)",
		func(f *Flow) *string { return &f.RcvBuf }),
	ackThreshField,
}

// The Params of the Config's own fields.

func self(c *Config) *Config { return c }

func durationParam(key, doc string, p func(*Config) *time.Duration) Param {
	return durationField(key, doc, p).param("", self)
}

func fractionParam(key, doc string, p func(*Config) *float64) Param {
	return fractionField(key, doc, p).param("", self)
}

func floatParam(key, unit, doc string, p func(*Config) *float64) Param {
	return floatField(key, unit, doc, p).param("", self)
}

func intParam(key, unit, doc string, p func(*Config) *int) Param {
	return intField(key, unit, doc, p).param("", self)
}

func boolParam(key, doc string, p func(*Config) *bool) Param {
	return boolField(key, doc, p).param("", self)
}

func stringParam(key, doc string, p func(*Config) *string) Param {
	return stringField(key, "", doc, p).param("", self)
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
	if b, err := units.ParseSize(v); err == nil && b > 0 {
		return QueueLimit{Bytes: b}, nil
	}
	return QueueLimit{}, fmt.Errorf("%q is not a queue limit (want packets 1000p, bytes 1MB or time 50ms, positive)", v)
}
