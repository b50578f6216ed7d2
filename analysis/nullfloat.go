package analysis

import (
	"math"
	"strconv"
)

// NullFloat is a float64 that is written to JSON as null when it is NaN or
// infinite: a metric that could not be measured (no RTT sample, a TCP flow
// without qlog) must read as "unknown", never as 0.
type NullFloat float64

// unknown returns the NaN that stands for "not measured".
func unknown() NullFloat { return NullFloat(math.NaN()) }

// Valid reports whether the value is a real number.
func (f NullFloat) Valid() bool {
	v := float64(f)
	return !math.IsNaN(v) && !math.IsInf(v, 0)
}

func (f NullFloat) MarshalJSON() ([]byte, error) {
	if !f.Valid() {
		return []byte("null"), nil
	}
	// Same notation as encoding/json: plain digits except for very large or
	// very small magnitudes.
	v := float64(f)
	format := byte('f')
	if a := math.Abs(v); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	return strconv.AppendFloat(nil, v, format, -1, 64), nil
}

func (f *NullFloat) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*f = unknown()
		return nil
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return err
	}
	*f = NullFloat(v)
	return nil
}
