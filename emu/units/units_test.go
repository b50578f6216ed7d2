package units

import "testing"

func TestUnits(t *testing.T) {
	rates := map[string]float64{"20mbit": 20e6, "1.5Gbit": 1.5e9, "500kbit": 5e5, "1mbps": 8e6, "100": 100}
	for in, want := range rates {
		if got, err := ParseRate(in); err != nil || got != want {
			t.Errorf("ParseRate(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	sizes := map[string]int64{"100MB": 100e6, "64KiB": 65536, "1500": 1500, "1e6": 1e6}
	for in, want := range sizes {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "mbit", "-1mbit", "20furlongs"} {
		if _, err := ParseRate(bad); err == nil {
			t.Errorf("ParseRate(%q) accepted", bad)
		}
	}
}
