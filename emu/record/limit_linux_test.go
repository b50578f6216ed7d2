package record_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/dc-emu/emu/emu/record"
	"github.com/dc-emu/emu/internal/emutest"
	"github.com/dc-emu/emu/topo"
)

// TestFidelityLongRecorderLimit records link1 held at constant rates, 5 ms
// each way, and reports the recorded mean against the rate: where it falls
// off is the recorder's own limit on this machine (docs/record.md). It is
// a measurement, not a check, and takes about a minute
// (scripts/fidelity-long ./emu/record).
func TestFidelityLongRecorderLimit(t *testing.T) {
	emutest.RequireRoot(t)
	emutest.FidelityLong(t)
	for _, mbit := range []int{100, 200, 300, 400, 600} {
		em := start(t, "dc.enabled=false", "flow.path=link1", "trace.up=false", "link1.down.rate="+fmt.Sprint(mbit)+"mbit", "link1.up.rate=20mbit", "link1.delay=5ms")
		rec := recordIn(t, em, topo.ClientNode(topo.PathLink1), nil, 5*time.Second)
		em.Close()
		files, err := record.WriteFiles(rec, t.TempDir()+"/rec", nil)
		if err != nil {
			t.Fatal(err)
		}
		st := files[0].Trace.Stats()
		t.Logf("%d Mbit/s: recorded %.1f Mbit/s (%+.1f %%), delay %.2f ms; behind %d of %d steps; warnings %q",
			mbit, st.Down.Mean, 100*(st.Down.Mean/float64(mbit)-1), st.Delay.P50, rec.Paths[0].DownSender.Behind, rec.Paths[0].DownSender.Steps, files[0].Warnings)
	}
}
