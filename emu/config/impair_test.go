package config

import (
	"strings"
	"testing"
	"time"
)

// TestDelayAndLossSources: what drives each direction's delay and loss
// after the settings, whatever their order.
func TestDelayAndLossSources(t *testing.T) {
	type src struct{ delay, loss string }
	cases := []struct {
		sets []string
		want [2][2]src // [link][down, up]
	}{
		// By default every direction follows its link's trace's delay and
		// loss where it carries them.
		{nil, [2][2]src{{{FromLinkTrace, FromLinkTrace}, {FromLinkTrace, FromLinkTrace}}, {{FromLinkTrace, FromLinkTrace}, {FromLinkTrace, FromLinkTrace}}}},
		// A constant makes its directions constant where the link's trace
		// carries (Starlink's delay) or may carry (a file) that column...
		{[]string{"link1.trace=starlink", "link1.delay=11ms"}, [2][2]src{{{"", FromLinkTrace}, {"", FromLinkTrace}}, {{FromLinkTrace, FromLinkTrace}, {FromLinkTrace, FromLinkTrace}}}},
		{[]string{"link.trace=my.csv", "link.down.loss=1%"}, [2][2]src{{{FromLinkTrace, ""}, {FromLinkTrace, FromLinkTrace}}, {{FromLinkTrace, ""}, {FromLinkTrace, FromLinkTrace}}}},
		{[]string{"link.trace=starlink", "link.delay_ratio=2:1"}, [2][2]src{{{"", FromLinkTrace}, {"", FromLinkTrace}}, {{"", FromLinkTrace}, {"", FromLinkTrace}}}},
		// ...and leaves the configuration alone where it cannot (StaticA,
		// no trace), so the paper's configurations are what they were.
		{[]string{"link1.delay=11ms", "link2.trace=none", "link2.loss=1%"}, [2][2]src{{{FromLinkTrace, FromLinkTrace}, {FromLinkTrace, FromLinkTrace}}, {{FromLinkTrace, FromLinkTrace}, {FromLinkTrace, FromLinkTrace}}}},
		// The same settings naming the source win, in either order.
		{[]string{"link1.trace=starlink", "link1.down.delay_trace=link", "link1.delay=11ms"}, [2][2]src{{{FromLinkTrace, FromLinkTrace}, {"", FromLinkTrace}}, {{FromLinkTrace, FromLinkTrace}, {FromLinkTrace, FromLinkTrace}}}},
		// A trace name in the delay or loss key is that direction's trace.
		{[]string{"link2.up.delay=my.delay", "link2.down.loss=x.loss"}, [2][2]src{{{FromLinkTrace, FromLinkTrace}, {FromLinkTrace, FromLinkTrace}}, {{FromLinkTrace, "x.loss"}, {"my.delay", FromLinkTrace}}}},
		{[]string{"link1.delay_trace=none"}, [2][2]src{{{"", FromLinkTrace}, {"", FromLinkTrace}}, {{FromLinkTrace, FromLinkTrace}, {FromLinkTrace, FromLinkTrace}}}},
	}
	for _, tc := range cases {
		c, err := Resolve("throughput", settings(t, tc.sets...))
		if err != nil {
			t.Errorf("%v: %v", tc.sets, err)
			continue
		}
		for i, l := range c.Links {
			for d, s := range []Shape{l.Down, l.Up} {
				if got := (src{s.DelayTrace, s.LossTrace}); got != tc.want[i][d] {
					t.Errorf("%v: link%d dir %d: delay from %q, loss from %q; want %+v", tc.sets, i+1, d, got.delay, got.loss, tc.want[i][d])
				}
			}
		}
	}
	// The delay key keeps its constant when it names a trace.
	c, err := Resolve("throughput", settings(t, "link1.delay=7ms", "link1.down.delay=starlink-leoreplayer-example.delay"))
	if err != nil {
		t.Fatal(err)
	}
	if d := c.Links[0].Down; d.Delay != 7*time.Millisecond || d.DelayTrace != "starlink-leoreplayer-example.delay" {
		t.Errorf("down: delay %v from %q", d.Delay, d.DelayTrace)
	}
	if v := Values(&c); v["link1.down.delay_trace"] != "starlink-leoreplayer-example.delay" || v["link1.up.delay_trace"] != FromLinkTrace || v["link2.up.delay_trace"] != FromLinkTrace {
		t.Errorf("Values: %q %q %q", v["link1.down.delay_trace"], v["link1.up.delay_trace"], v["link2.up.delay_trace"])
	}
}

// TestImpairmentValuesRoundTrip: a configuration's Values set again give
// the same sources, the explicit constants included.
func TestImpairmentValuesRoundTrip(t *testing.T) {
	c, err := Resolve("throughput", settings(t, "link1.trace=starlink", "link1.up.delay=5ms", "link2.down.loss_bursts=1%,25%"))
	if err != nil {
		t.Fatal(err)
	}
	var sets []string
	for k, v := range Values(&c) {
		if k != "scenario" {
			sets = append(sets, k+"="+v)
		}
	}
	c2, err := Resolve("throughput", settings(t, sets...))
	if err != nil {
		t.Fatal(err)
	}
	if c2.Links != c.Links {
		t.Errorf("links after a round trip:\n%+v\nwant\n%+v", c2.Links, c.Links)
	}
}

func TestBurstLossKey(t *testing.T) {
	c, err := Resolve("throughput", settings(t, "link1.down.loss_bursts=1%,25%", "link2.up.loss_bursts=0.5%,10%,80%,0.1%"))
	if err != nil {
		t.Fatal(err)
	}
	if b := c.Links[0].Down.Bursts; b != (Bursts{P: 0.01, R: 0.25, BadLoss: 1}) {
		t.Errorf("link1.down: %+v", b)
	}
	if b := c.Links[1].Up.Bursts; b != (Bursts{P: 0.005, R: 0.1, BadLoss: 0.8, GoodLoss: 0.001}) {
		t.Errorf("link2.up: %+v", b)
	}
	if v := Values(&c); v["link1.down.loss_bursts"] != "1%,25%,100%,0%" || v["link1.up.loss_bursts"] != "none" {
		t.Errorf("Values: %q %q", v["link1.down.loss_bursts"], v["link1.up.loss_bursts"])
	}
	for _, tc := range []struct{ set, want string }{
		{"link1.loss_bursts=1%", "want p,r[,1-h[,1-k]]"},
		{"link1.loss_bursts=1%,0", "r is 0"},
		{"link1.loss_bursts=0,5%", "p is 0"},
		{"link1.loss_bursts=1%,200%", "out of range"},
		{"link1.loss_bursts=1%,20%;link1.loss=1%", "link1.down.loss_bursts: 1%,20%,100%,0% beside link1.down.loss=1%"},
		{"link1.loss_bursts=1%,20%;link1.loss=x.loss", "beside link1.down.loss_trace=x.loss"},
		{"link1.delay=10mss", `"10mss"`},
	} {
		_, err := Resolve("throughput", settings(t, strings.Split(tc.set, ";")...))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to contain %q", tc.set, err, tc.want)
		}
	}
}

func TestImpairmentSources(t *testing.T) {
	c, err := Resolve("throughput", settings(t, "link1.trace=starlink", "link1.up.delay=5ms", "link2.trace=none", "link2.down.loss=x.loss"))
	if err != nil {
		t.Fatal(err)
	}
	got := c.ImpairmentSources()
	for _, want := range []string{"link2.down loss: trace x.loss"} {
		if !strings.Contains(got, want) {
			t.Errorf("ImpairmentSources() = %q, want it to contain %q", got, want)
		}
	}
	if strings.Contains(got, "link1") || strings.Contains(got, "link2.up") {
		t.Errorf("ImpairmentSources() = %q names a constant direction", got)
	}
}
