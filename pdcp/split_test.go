package pdcp

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/dc-emu/emu/internal/emutest"
)

func TestParseSplit(t *testing.T) {
	good := []struct {
		in   string
		want Split
	}{
		{"1:1", Split{1, 1}},
		{"9:1", Split{9, 1}},
		{"1:0", Split{1, 0}},
		{"0:1", Split{0, 1}},
		{"0.3:0.7", Split{0.3, 0.7}},
		{".5:2.", Split{0.5, 2}},
		{"100:0033", Split{100, 33}},
	}
	for _, tc := range good {
		got, err := ParseSplit(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseSplit(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	bad := []struct{ in, want string }{
		{"3:x", `"3:x": "x" is not a non-negative decimal number`},
		{"0:0", `"0:0": at least one weight must be positive`},
		{"-1:1", `"-1" is not a non-negative decimal number`},
		{"1", `"1": want a:b`},
		{"", `"": want a:b`},
		{"1:1:1", `"1:1" is not`},
		{" 1:1", `" 1" is not`},
		{"inf:1", `"inf" is not`},
		{"1e3:1", `"1e3" is not`},
		{".:1", `"." is not`},
		{"1..2:1", `"1..2" is not`},
		{"1:", `"" is not`},
	}
	for _, tc := range bad {
		_, err := ParseSplit(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseSplit(%q) error %v, want it to contain %q", tc.in, err, tc.want)
		}
	}
}

func FuzzParseSplit(f *testing.F) {
	emutest.AddSeeds[string](f, "1:1", "9:1", "0.3:0.7", "1:0", "3:x", "0:0", ":", "1.5:.25")
	f.Fuzz(func(t *testing.T, s string) {
		sp, err := ParseSplit(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), strconv.Quote(s)+": ") {
				t.Fatalf("error does not quote the split: %v", err)
			}
			return
		}
		for _, v := range sp {
			if v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
				t.Fatalf("ParseSplit(%q) = %v", s, sp)
			}
		}
		if sp[0]+sp[1] == 0 {
			t.Fatalf("ParseSplit(%q) accepted an all-zero split", s)
		}
		again, err := ParseSplit(sp.String())
		if err != nil || again != sp {
			t.Fatalf("String() %q does not parse back to %v: %v, %v", sp.String(), sp, again, err)
		}
	})
}
