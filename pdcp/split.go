package pdcp

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Split is the ratio a:b of PDUs sent on link 0 and link 1. The
// zero value means "unset" and stands for the default 1:1; ParseSplit never
// returns it.
type Split [2]float64

// ParseSplit parses "a:b" with a and b non-negative integers or decimals
// ("1:1", "9:1", "0.3:0.7", "1:0"), not both zero. Errors say what is
// wrong with s and leave naming the setting to the caller.
func ParseSplit(s string) (Split, error) {
	a, b, ok := strings.Cut(s, ":")
	if !ok {
		return Split{}, fmt.Errorf("%q: want a:b, e.g. 1:1 or 9:1", s)
	}
	var sp Split
	for i, part := range [2]string{a, b} {
		v, err := parseWeight(part)
		if err != nil {
			return Split{}, fmt.Errorf("%q: %w", s, err)
		}
		sp[i] = v
	}
	if err := sp.check(); err != nil {
		return Split{}, fmt.Errorf("%q: %w", s, err)
	}
	return sp, nil
}

// parseWeight accepts only plain decimals: digits with at most one point.
// strconv.ParseFloat alone would also take "inf", "1e3", "0x1p4" or "-1".
func parseWeight(s string) (float64, error) {
	digits, points := 0, 0
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r == '.':
			points++
		default:
			return 0, fmt.Errorf("%q is not a non-negative decimal number", s)
		}
	}
	if digits == 0 || points > 1 {
		return 0, fmt.Errorf("%q is not a non-negative decimal number", s)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("%q: %w", s, err)
	}
	return v, nil
}

// check reports a split no scheduler can use.
func (sp Split) check() error {
	for _, v := range sp {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("weights must be finite and non-negative")
		}
	}
	if math.IsInf(sp[0]+sp[1], 0) {
		return fmt.Errorf("weights too large")
	}
	if sp[0] == 0 && sp[1] == 0 {
		return fmt.Errorf("at least one weight must be positive")
	}
	return nil
}

// String formats the split as ParseSplit reads it.
func (sp Split) String() string {
	return strconv.FormatFloat(sp[0], 'f', -1, 64) + ":" + strconv.FormatFloat(sp[1], 'f', -1, 64)
}

// Share0 is the fraction of the PDUs link 0 carries.
func (sp Split) Share0() float64 { return sp[0] / (sp[0] + sp[1]) }
