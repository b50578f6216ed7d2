package tracefmt

import (
	"bytes"
	"math"
	"os"
	"strings"
	"testing"
	"time"
)

func TestTransform(t *testing.T) {
	tr := stepTrace()
	for _, c := range []struct {
		name string
		o    Options
		want []Step
		end  time.Duration
	}{
		{"none", Options{}, tr.Steps, 30 * s},
		{"offset", Options{Offset: 15 * s}, []Step{{Down: 30e6}, {At: 5 * s, Down: 10e6}}, 15 * s},
		{"offset on a boundary", Options{Offset: 10 * s}, []Step{{Down: 30e6}, {At: 10 * s, Down: 10e6}}, 20 * s},
		{"cut", Options{Duration: 12 * s}, []Step{{Down: 10e6}, {At: 10 * s, Down: 30e6}}, 12 * s},
		{"cut on a boundary", Options{Duration: 10 * s}, []Step{{Down: 10e6}}, 10 * s},
		{"window", Options{Offset: 5 * s, Duration: 10 * s}, []Step{{Down: 10e6}, {At: 5 * s, Down: 30e6}}, 10 * s},
		{"cut past the end", Options{Offset: 25 * s, Duration: time.Hour}, []Step{{Down: 10e6}}, 5 * s},
		{"slower", Options{TimeScale: 2}, []Step{{Down: 10e6}, {At: 20 * s, Down: 30e6}, {At: 40 * s, Down: 10e6}}, 60 * s},
		{"faster and scaled", Options{TimeScale: 0.5, RateScale: 0.1}, []Step{{Down: 1e6}, {At: 5 * s, Down: 3e6}, {At: 10 * s, Down: 1e6}}, 15 * s},
		{"cut then scaled", Options{Offset: 10 * s, TimeScale: 3}, []Step{{Down: 30e6}, {At: 30 * s, Down: 10e6}}, 60 * s},
		{"squeezed", Options{TimeScale: 1e-10}, []Step{{Down: 10e6}, {At: 1, Down: 30e6}, {At: 2, Down: 10e6}}, 3},
		{"squeezed away", Options{TimeScale: 1e-10, Offset: 5 * s}, []Step{{Down: 10e6}, {At: 1, Down: 30e6}, {At: 2, Down: 10e6}}, 3},
	} {
		got, err := tr.Transform(c.o)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got.End != c.end || len(got.Steps) != len(c.want) {
			t.Errorf("%s: %+v end %v, want %+v end %v", c.name, got.Steps, got.End, c.want, c.end)
			continue
		}
		for i := range c.want {
			if g, w := got.Steps[i], c.want[i]; g.At != w.At || math.Abs(g.Down-w.Down) > 1e-6 {
				t.Errorf("%s: step %d = %+v, want %+v", c.name, i, g, w)
			}
		}
	}
	if tr.End != 30*s || len(tr.Steps) != 3 {
		t.Error("Transform changed its receiver")
	}
	for _, o := range []Options{
		{Offset: 30 * s}, {Offset: -s}, {Duration: -s}, {TimeScale: -1}, {RateScale: math.NaN()},
		{RateScale: math.Inf(1)}, {RateScale: 1e12}, {TimeScale: 1e10}, {TimeScale: 1e-12},
	} {
		if _, err := tr.Transform(o); err == nil {
			t.Errorf("Transform(%+v) succeeded", o)
		}
	}
}

func TestWriteCSVRoundTrip(t *testing.T) {
	tr := &Trace{
		Steps: []Step{
			{Down: 12.906e6, Up: 0.218e6, Delay: 25 * time.Millisecond, Loss: 0},
			{At: 1500*time.Millisecond + 1, Down: 0, Up: 1, Delay: 40*time.Millisecond + 7, Loss: 0.125},
		},
		End: 3 * s, HasUp: true, HasDelay: true, HasLoss: true,
	}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, tr); err != nil {
		t.Fatal(err)
	}
	want := "time_s,down_mbps,up_mbps,delay_ms,loss\n0,12.906,0.218,25,0\n1.500000001,0,0.000001,40.000007,0.125\n3,0,0.000001,40.000007,0.125\n"
	if buf.String() != want {
		t.Errorf("WriteCSV wrote\n%s\nwant\n%s", buf.String(), want)
	}
	back := read(t, buf.String(), ReadOptions{})
	sameSteps(t, back, tr.Steps, tr.End)
	if !back.HasUp || !back.HasDelay || !back.HasLoss {
		t.Errorf("flags lost: %+v", back)
	}
}

func TestWriteCSVRoundTripRealTraces(t *testing.T) {
	for _, name := range []string{"raca5g-driving-B.csv", "norway-hsdpa-bus-1.cooked", "mahimahi-verizon-lte-short.down"} {
		tr, err := ReadFile("../traces/"+name, ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := WriteCSV(&buf, tr); err != nil {
			t.Fatal(err)
		}
		back := read(t, buf.String(), ReadOptions{})
		if back.End != tr.End || len(back.Steps) != len(tr.Steps) {
			t.Fatalf("%s: %d steps over %v, read back %d over %v", name, len(tr.Steps), tr.End, len(back.Steps), back.End)
		}
		for i := range tr.Steps {
			g, w := back.Steps[i], tr.Steps[i]
			if g.At != w.At || !close(g.Down, w.Down) || !close(g.Up, w.Up) {
				t.Fatalf("%s: step %d read back as %+v, wrote %+v", name, i, g, w)
			}
		}
	}
}

func close(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestWriteMahimahi(t *testing.T) {
	// 1.2 Mbit/s = one packet every 10 ms, for 100 ms.
	tr := &Trace{Steps: []Step{{Down: 1.2e6, Up: 0.6e6}}, End: 100 * time.Millisecond, HasUp: true}
	var buf bytes.Buffer
	if err := WriteMahimahi(&buf, tr, false); err != nil {
		t.Fatal(err)
	}
	if got, want := buf.String(), "9\n19\n29\n39\n49\n59\n69\n79\n89\n100\n"; got != want {
		t.Errorf("down:\n%q\nwant\n%q", got, want)
	}
	buf.Reset()
	if err := WriteMahimahi(&buf, tr, true); err != nil {
		t.Fatal(err)
	}
	if got, want := buf.String(), "19\n39\n59\n79\n100\n"; got != want {
		t.Errorf("up:\n%q\nwant\n%q", got, want)
	}
	// The last packet moves to the end, the loop period.
	buf.Reset()
	WriteMahimahi(&buf, &Trace{Steps: []Step{{Down: 1.2e6}, {At: 30 * time.Millisecond}}, End: 50 * time.Millisecond}, false)
	if got, want := buf.String(), "9\n19\n50\n"; got != want {
		t.Errorf("with a trailing outage:\n%q\nwant\n%q", got, want)
	}
	// mm-link's rule by hand: 12 Mbit/s is one 1500-byte packet a ms, so
	// the first 10 ms finish packets at 1, 2, ... 10 ms, written as the ms
	// before: 0..9. 24 Mbit/s is two a ms: packets finish at 10.5, 11,
	// 11.5, ... 20 ms, written 10, 10, 11, 11, ... 19, 19; the last one
	// moves to 20, the loop period. 30 lines in all.
	two := &Trace{Steps: []Step{{Down: 12e6}, {At: 10 * time.Millisecond, Down: 24e6}}, End: 20 * time.Millisecond}
	buf.Reset()
	if err := WriteMahimahi(&buf, two, false); err != nil {
		t.Fatal(err)
	}
	want := "0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n" +
		"10\n10\n11\n11\n12\n12\n13\n13\n14\n14\n15\n15\n16\n16\n17\n17\n18\n18\n19\n20\n"
	if got := buf.String(); got != want {
		t.Errorf("12 then 24 Mbit/s:\n%q\nwant\n%q", got, want)
	}
	// Reading it back gives the same rates, in the default 10 ms windows
	// and in 1 ms ones (the packet moved to 20 ms counts in the window
	// before, so the last millisecond still carries two).
	for _, w := range []time.Duration{0, time.Millisecond} {
		back := read(t, want, ReadOptions{Format: FormatMahimahi, Window: w})
		sameSteps(t, back, two.Steps, two.End)
	}
	for name, bad := range map[string]*Trace{
		"no uplink":  {Steps: []Step{{Down: 1e6}}, End: s},
		"no packets": {Steps: []Step{{Down: 1}}, End: s, HasUp: true},
		"too short":  {Steps: []Step{{Down: 1e6}}, End: time.Microsecond, HasUp: true},
		"too big":    {Steps: []Step{{Down: MaxRate}}, End: time.Hour, HasUp: true},
	} {
		if err := WriteMahimahi(&bytes.Buffer{}, bad, name == "no uplink"); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// Writing a real Mahimahi trace after reading it gives back the same number
// of packets and the same mean, and every packet within its window.
func TestWriteMahimahiRoundTrip(t *testing.T) {
	orig, err := os.ReadFile("../traces/mahimahi-verizon-lte-short.down")
	if err != nil {
		t.Fatal(err)
	}
	tr := read(t, string(orig), ReadOptions{Format: FormatMahimahi})
	var buf bytes.Buffer
	if err := WriteMahimahi(&buf, tr, false); err != nil {
		t.Fatal(err)
	}
	origLines, gotLines := strings.Fields(string(orig)), strings.Fields(buf.String())
	if d := len(gotLines) - len(origLines); d < -1 || d > 1 || gotLines[len(gotLines)-1] != origLines[len(origLines)-1] {
		t.Errorf("wrote %d lines ending %s, original %d ending %s", len(gotLines), gotLines[len(gotLines)-1], len(origLines), origLines[len(origLines)-1])
	}
	back := read(t, buf.String(), ReadOptions{})
	if a, b := back.Stats().Down.Mean, tr.Stats().Down.Mean; math.Abs(a-b) > MahimahiPacketBits/tr.End.Seconds()/1e6 {
		t.Errorf("mean %v after round trip, %v before", a, b)
	}
	// Windows of 10 ms are exact: same packets per window (bar the last).
	for i := 0; i < len(tr.Steps)-1; i++ {
		if !close(back.Steps[i].Down, tr.Steps[i].Down) || back.Steps[i].At != tr.Steps[i].At {
			t.Fatalf("step %d: %+v after round trip, %+v before", i, back.Steps[i], tr.Steps[i])
		}
	}
}
