package results

import (
	"math"
	"testing"
)

// TestStatText: a table cell of a Stat.
func TestStatText(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		s    Stat
		prec int
		want string
	}{
		{Stat{Mean: 12.345, CI95: 0.5, N: 3}, 1, "12.3 ± 0.5"},
		{Stat{Mean: 12.345, CI95: nan, N: 1}, 2, "12.35"},
		{Stat{Mean: nan, N: 0}, 1, "-"},
		{Stat{Mean: 4, CI95: 1.25, N: 5}, 0, "4 ± 1"},
	} {
		if got := tc.s.Text(tc.prec); got != tc.want {
			t.Errorf("%+v.Text(%d) = %q, want %q", tc.s, tc.prec, got, tc.want)
		}
	}
}
