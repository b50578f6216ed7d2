package findings

import (
	"math"
	"testing"

	"github.com/dc-emu/emu/internal/emutest"
)

// ReadReport takes any bytes without panicking, and what it accepts
// encodes again.
func FuzzReadReport(f *testing.F) {
	f1 := Finding{ID: "f1", Figures: "Fig. 1", Title: "a rule", Paper: "x rises",
		Shape: []Check{Greater(TermAt("m", PointAt("p", "x", "2")), TermAt("m", PointAt("p", "x", "1")))}}
	b, err := NewReport(Meta{Scale: "quick", Repeat: 3}, []Finding{f1}, Results{}).JSON()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`{"version": 1, "findings": [{"checks": [{"numbers": [{"mean": null}]}]}]}`))
	f.Add([]byte(`{"version": 1, "counts": {"holds": -1}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		rep, err := ReadReport(b)
		if err != nil {
			return
		}
		if _, err := rep.JSON(); err != nil {
			t.Fatalf("an accepted report does not encode: %v", err)
		}
	})
}

// parsePercent accepts exactly the percentages 0–100 %.
func FuzzParsePercent(f *testing.F) {
	emutest.AddSeeds[string](f, "0%", "0.08%", "5%", "100%", "101%", "-1%", "NaN%", "1e1%", "5", "%")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := parsePercent(s)
		if err == nil && (math.IsNaN(p) || p < 0 || p > 1) {
			t.Fatalf("%q: %v accepted", s, p)
		}
	})
}
