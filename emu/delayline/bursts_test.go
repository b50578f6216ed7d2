package delayline

import (
	"math"
	"slices"
	"testing"
)

// TestBurstLoss checks the Gilbert–Elliott model against its closed forms:
// the long-run loss P/(P+R)·BadLoss + R/(P+R)·GoodLoss and, with BadLoss 1
// and GoodLoss 0, bursts of 1/R packets on average; and that the same seed
// loses the same packets.
func TestBurstLoss(t *testing.T) {
	const n = 400_000
	for _, g := range []GilbertElliott{
		{P: 0.01, R: 0.25, BadLoss: 1},
		{P: 0.02, R: 0.1, BadLoss: 0.8, GoodLoss: 0.001},
	} {
		p := Params{Bursts: g}
		lost := lostIndices(3, p, n)
		rate := float64(len(lost)) / n
		if want := g.MeanLoss(); math.Abs(rate-want) > 0.1*want {
			t.Errorf("%+v: loss %.4f, want %.4f ± 10%%", g, rate, want)
		}
		if !slices.Equal(lost, lostIndices(3, p, n)) {
			t.Errorf("%+v: same seed lost different packets", g)
		}
		if g.GoodLoss != 0 || g.BadLoss != 1 {
			continue
		}
		bursts, run := 0, 0
		for i, idx := range lost {
			if i == 0 || idx != lost[i-1]+1 {
				bursts++
			}
			run++
		}
		if mean, want := float64(run)/float64(bursts), 1/g.R; math.Abs(mean-want) > 0.1*want {
			t.Errorf("%+v: bursts of %.2f packets on average, want %.2f ± 10%%", g, mean, want)
		}
	}
	// Independent loss at the same mean comes in bursts of about 1.
	iid := lostIndices(3, Params{Loss: GilbertElliott{P: 0.01, R: 0.25, BadLoss: 1}.MeanLoss()}, n)
	bursts := 0
	for i, idx := range iid {
		if i == 0 || idx != iid[i-1]+1 {
			bursts++
		}
	}
	if mean := float64(len(iid)) / float64(bursts); mean > 1.1 {
		t.Errorf("independent loss: bursts of %.2f packets", mean)
	}
}
