package record

import (
	"strings"
	"testing"
	"time"
)

// bins returns n bins of a steady stream: got packets a step, each with
// the given one-way delay, one drained packet every 10 steps.
func steadyBins(n, got int, owd int64) Bins {
	b := Bins{Packet: 1500, Bins: make([]Bin, n)}
	for i := range b.Bins {
		b.Bins[i] = Bin{Bytes: int64(got) * 1500, Got: int32(got), MinOWD: owd, ProbeOWD: owd + 1e6, Base: noDelay,
			BusyBytes: int64(got) * 1500, BusyTime: int64(Step)}
		if i%10 == 0 {
			b.Bins[i].Base = owd
		}
	}
	return b
}

// TestDeriveSteady: a steady stream gives its rate, delay and no loss,
// and the clocks' offset comes off each direction with its sign.
func TestDeriveSteady(t *testing.T) {
	p := Path{Down: steadyBins(100, 50, 20e6-3e6), Up: steadyBins(100, 10, 25e6+3e6), Offset: 3e6}
	tr, warn, err := Derive(p, "x.csv")
	if err != nil {
		t.Fatal(err)
	}
	st := tr.Stats()
	if st.Down.Mean != 60 || st.Up.Mean != 12 {
		t.Errorf("rates %v / %v Mbit/s, want 60 / 12", st.Down.Mean, st.Up.Mean)
	}
	if s := tr.Steps[50]; s.Delay != 20*time.Millisecond || s.UpDelay != 25*time.Millisecond || s.Loss != 0 || s.UpLoss != 0 {
		t.Errorf("step 50: %+v, want delays 20 and 25 ms, no loss", s)
	}
	if len(warn) != 0 {
		t.Errorf("warnings %q", warn)
	}
}

// TestDeriveNothingArrived: a direction in which nothing arrived is an
// error naming it, not a trace of zeros.
func TestDeriveNothingArrived(t *testing.T) {
	up := steadyBins(100, 0, 0)
	for i := range up.Bins {
		up.Bins[i] = Bin{MinOWD: noDelay, ProbeOWD: noDelay, Base: noDelay}
	}
	_, _, err := Derive(Path{Down: steadyBins(100, 50, 20e6), Up: up}, "x.csv")
	if err == nil || !strings.Contains(err.Error(), "uplink") {
		t.Fatalf("err %v, want one naming the uplink", err)
	}
}

// TestDeriveWarns: a sender that fell behind, a path held at the
// maximum rate and clocks known only within milliseconds are said.
func TestDeriveWarns(t *testing.T) {
	p := Path{Down: steadyBins(100, 50, 20e6), Up: steadyBins(100, 10, 20e6),
		DownSender:        SenderStat{Steps: 100, Behind: 50, MaxRate: 2e9},
		UpSender:          SenderStat{Steps: 100, AtMax: 80, MaxRate: 12e6},
		OffsetUncertainty: 4 * time.Millisecond}
	_, warn, err := Derive(p, "x.csv")
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(warn, "\n")
	for _, want := range []string{"downlink's sender fell behind", "uplink was held at the maximum rate", "known within"} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings %q lack %q", all, want)
		}
	}
}

// TestDeriveSmoothsLoss: one lost packet in a step of a steady stream is
// a loss over the second around it, not 1/50 in that step alone.
func TestDeriveSmoothsLoss(t *testing.T) {
	down := steadyBins(200, 50, 20e6)
	down.Bins[100].Lost = 1
	tr, _, err := Derive(Path{Down: down, Up: steadyBins(200, 10, 20e6)}, "x.csv")
	if err != nil {
		t.Fatal(err)
	}
	want := 1.0 / (101*50 + 1)
	if got := tr.Steps[100].Loss; got < want*0.99 || got > want*1.01 {
		t.Errorf("loss at the step %v, want %v (one in the 101 steps around)", got, want)
	}
}
