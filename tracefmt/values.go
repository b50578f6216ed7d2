package tracefmt

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// rateUnit returns the multiplier to bit/s of a ReadOptions.RateUnit name
// ("" is Mbit/s, the unit of every per-second throughput dataset shipped).
func rateUnit(name string) (float64, error) {
	switch strings.ToLower(name) {
	case "bps":
		return 1, nil
	case "kbps":
		return 1e3, nil
	case "mbps", "":
		return 1e6, nil
	case "gbps":
		return 1e9, nil
	}
	return 0, fmt.Errorf("unknown rate unit %q (want bps, kbps, mbps or gbps)", name)
}

// timeUnit returns the multiplier to nanoseconds of a ReadOptions.TimeUnit
// name ("" is seconds).
func timeUnit(name string) (float64, error) {
	switch strings.ToLower(name) {
	case "s", "":
		return 1e9, nil
	case "ms":
		return 1e6, nil
	}
	return 0, fmt.Errorf("unknown time unit %q (want s or ms)", name)
}

// parseRate reads a non-negative rate given in a unit of mult bit/s and
// returns bit/s. Errors are bare reasons; callers wrap them in ParseError.
func parseRate(s string, mult float64) (float64, error) {
	v, err := parseFinite(s)
	if err != nil {
		return 0, err
	}
	if v < 0 {
		return 0, ErrNegative
	}
	v *= mult
	if v > MaxRate {
		return 0, errorf(ErrOutOfRange, "above %g bit/s", float64(MaxRate))
	}
	return v, nil
}

// parseTime reads a non-negative time given in a unit of mult ns. Plain
// decimals are read exactly (a float64 would lose nanoseconds beyond about
// 100 days, and WriteCSV's times must read back unchanged).
func parseTime(s string, mult float64) (time.Duration, error) {
	if d, ok := parseDecimalTime(strings.TrimSpace(s), mult); ok {
		return d, nil
	}
	v, err := parseFinite(s)
	if err != nil {
		return 0, err
	}
	if v < 0 {
		return 0, ErrNegative
	}
	ns := math.Round(v * mult)
	if ns > float64(MaxDuration) {
		return 0, errorf(ErrOutOfRange, "longer than %v", MaxDuration)
	}
	return time.Duration(ns), nil
}

// parseDecimalTime reads "123" or "123.456" exactly when mult is a power of
// ten (1e9 for seconds, 1e6 for milliseconds); ok is false for any other
// form, which parseTime then reads as a float (or rejects).
func parseDecimalTime(s string, mult float64) (time.Duration, bool) {
	digits := 0
	for m := mult; m >= 10; m /= 10 {
		digits++
	}
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" || len(whole) > 19 || !allDigits(whole) || !allDigits(frac) {
		return 0, false
	}
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return 0, false
	}
	round := len(frac) > digits && frac[digits] >= '5'
	if len(frac) > digits {
		frac = frac[:digits]
	}
	frac += strings.Repeat("0", digits-len(frac))
	f, _ := strconv.ParseInt("0"+frac, 10, 64)
	unit := int64(1)
	for range digits {
		unit *= 10
	}
	if w > int64(MaxDuration)/unit {
		return 0, false // out of range: let the float path say so
	}
	ns := w*unit + f
	if round {
		ns++
	}
	return time.Duration(ns), ns <= int64(MaxDuration)
}

func allDigits(s string) bool {
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// parseFinite is strconv.ParseFloat without NaN, infinities or hex floats,
// none of which belong in a trace.
func parseFinite(s string) (float64, error) {
	s = strings.TrimSpace(s)
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, numErr(err)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) || strings.ContainsAny(s, "xXpP_") {
		return 0, strconv.ErrSyntax
	}
	return v, nil
}

// missing reports whether a field holds no value: the G-NetTrack logger
// writes "-", spreadsheets leave the cell empty.
func missing(s string) bool {
	s = strings.TrimSpace(s)
	return s == "" || s == "-"
}

// formatSeconds prints d in seconds exactly (up to nanoseconds), without
// trailing zeros, so that writing and reading a trace keeps its times.
func formatSeconds(d time.Duration) string {
	return formatFixed(int64(d), 9)
}

// formatFixed prints n / 10^decimals exactly, trimming trailing zeros.
func formatFixed(n int64, decimals int) string {
	neg := n < 0
	u := uint64(n)
	if neg {
		u = uint64(-n)
	}
	digits := strconv.FormatUint(u, 10)
	if len(digits) <= decimals {
		digits = strings.Repeat("0", decimals-len(digits)+1) + digits
	}
	whole, frac := digits[:len(digits)-decimals], strings.TrimRight(digits[len(digits)-decimals:], "0")
	s := whole
	if frac != "" {
		s += "." + frac
	}
	if neg {
		s = "-" + s
	}
	return s
}

// formatMbps prints a rate in bit/s as Mbit/s, shortest exact form.
func formatMbps(bps float64) string {
	return strconv.FormatFloat(bps/1e6, 'f', -1, 64)
}
