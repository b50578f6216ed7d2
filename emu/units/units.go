package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Values on the command line carry units, the way tc and netem take them:
// rates in bit/s with SI prefixes ("20mbit", "1.5Gbit", "800kbps" is bytes),
// times as Go durations ("10ms", "1.5s"), fractions as percentages ("0.5%")
// or plain numbers, sizes in bytes with binary or SI prefixes ("100MB",
// "64KiB"). Each parser returns an error naming what it expected, so the
// caller can wrap it with the key.

// ParseRate parses a rate and returns bit/s. A bare number is bit/s.
func ParseRate(s string) (float64, error) {
	v, err := scaled(s, rateUnits, "rate", "20mbit, 1.5gbit, 500kbit", "bit, kbit, mbit, gbit, or bps/kbps/mbps/gbps for bytes")
	if err != nil {
		return 0, err
	}
	if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q: rate must be a non-negative number", s)
	}
	return v, nil
}

// rateUnits follows tc(8): "bit" units are bits, "bps" units are bytes.
var rateUnits = map[string]float64{
	"": 1, "bit": 1, "b": 1, "bps": 8,
	"kbit": 1e3, "k": 1e3, "kb": 1e3, "kbps": 8e3,
	"mbit": 1e6, "m": 1e6, "mb": 1e6, "mbps": 8e6,
	"gbit": 1e9, "g": 1e9, "gb": 1e9, "gbps": 8e9,
}

// FormatRate prints bit/s with the largest unit that keeps it readable.
func FormatRate(bps float64) string {
	switch {
	case bps >= 1e9 && isRound(bps/1e9):
		return trimFloat(bps/1e9) + "gbit"
	case bps >= 1e6:
		return trimFloat(bps/1e6) + "mbit"
	case bps >= 1e3:
		return trimFloat(bps/1e3) + "kbit"
	default:
		return trimFloat(bps) + "bit"
	}
}

// ParseDuration parses a non-negative Go duration; a bare "0" is allowed.
func ParseDuration(s string) (time.Duration, error) {
	if s == "0" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration (want e.g. 10ms, 1.5s, 2m)", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("%q: must not be negative", s)
	}
	return d, nil
}

// ParseFraction parses "0.5%" as 0.005 and a bare "0.005" as itself; the
// result must lie in [0, 1].
func ParseFraction(s string) (float64, error) {
	num, pct := strings.CutSuffix(strings.TrimSpace(s), "%")
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a fraction (want e.g. 0.5%% or 0.005)", s)
	}
	if pct {
		v /= 100
	}
	if v < 0 || v > 1 || math.IsNaN(v) {
		return 0, fmt.Errorf("%q is out of range (0%%..100%%)", s)
	}
	return v, nil
}

// FormatFraction prints a fraction as a percentage.
func FormatFraction(v float64) string { return trimFloat(v*100) + "%" }

// ParseSize parses a byte count: "100MB" (10^6), "64KiB" (2^10), "1500".
func ParseSize(s string) (int64, error) {
	v, err := scaled(s, sizeUnits, "size", "100MB, 64KiB, 1500", "B, kB, MB, GB, KiB, MiB, GiB")
	if err != nil {
		return 0, err
	}
	if v < 0 || v > math.MaxInt64/2 || math.IsNaN(v) {
		return 0, fmt.Errorf("%q: size out of range", s)
	}
	return int64(math.Round(v)), nil
}

var sizeUnits = map[string]float64{
	"": 1, "b": 1,
	"k": 1e3, "kb": 1e3, "m": 1e6, "mb": 1e6, "g": 1e9, "gb": 1e9, "t": 1e12, "tb": 1e12,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
}

// FormatSize prints bytes with an SI unit when it is exact.
func FormatSize(n int64) string {
	for _, u := range []struct {
		div  int64
		name string
	}{{1e12, "TB"}, {1e9, "GB"}, {1e6, "MB"}, {1e3, "kB"}} {
		if n >= u.div && n%u.div == 0 {
			return strconv.FormatInt(n/u.div, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}

// scaled reads a number with a unit of units (case-insensitive) and
// returns the number times the unit's factor. Its errors name what the
// value is (a rate, a size), examples of one and the units known.
func scaled(s string, units map[string]float64, what, examples, known string) (float64, error) {
	num, unit := splitNumber(s)
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || num == "" {
		return 0, fmt.Errorf("%q is not a %s (want e.g. %s)", s, what, examples)
	}
	mult, ok := units[strings.ToLower(unit)]
	if !ok {
		return 0, fmt.Errorf("%q: unknown %s unit %q (use %s)", s, what, unit, known)
	}
	return v * mult, nil
}

// splitNumber splits "20mbit" into "20" and "mbit".
func splitNumber(s string) (num, unit string) {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.' || s[i] == '-' || s[i] == '+' || s[i] == 'e' && i > 0 && i+1 < len(s) && (s[i+1] >= '0' && s[i+1] <= '9' || s[i+1] == '-')) {
		i++
	}
	return s[:i], strings.TrimSpace(s[i:])
}

func trimFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func isRound(v float64) bool { return v == math.Trunc(v) }
