package flowcontrol

import (
	"strings"
	"testing"
	"time"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/study/studytest"
)

// lookup is key's value in point id's configuration.
func lookup(t *testing.T, p *results.Plan, id, key string) string {
	t.Helper()
	c := studytest.Config(t, p, id)
	v, ok := config.Lookup(&c, key)
	if !ok {
		t.Fatalf("%s: no key %s", id, key)
	}
	return v
}

// TestPresets: each preset is the off point and its flow-controlled
// points, one per label, every one compared with off; the off point sets
// no dc.fc.* key and runs the adaptive scheduler, the others DDDS with the
// credit scheduler at the buffer and interval their labels name; each
// runs one TCP CUBIC download through DC.
func TestPresets(t *testing.T) {
	for _, tc := range []struct {
		name      string
		points    int
		intervals []string
		duration  time.Duration
	}{
		{"fc-mmwave", 1 + 3*3, intervals, 60 * time.Second},
		{"fc-lte", 1 + 3, []string{DefaultInterval}, 60 * time.Second},
		{"fc-unequal", 1 + 3, []string{DefaultInterval}, 30 * time.Second},
	} {
		p := studytest.Named(t, Study(), tc.name)
		if len(p.Points) != tc.points {
			t.Errorf("%s: %d points, want %d", tc.name, len(p.Points), tc.points)
		}
		var off string
		for _, pt := range p.Points {
			if pt.Labels[Axis] == Off {
				off = pt.ID
			}
		}
		if off == "" {
			t.Fatalf("%s: no off point", tc.name)
		}
		seen := map[string]bool{}
		for _, pt := range p.Points {
			c := studytest.Config(t, p, pt.ID)
			if err := c.Validate(); err != nil {
				t.Errorf("%s %s: %v", tc.name, pt.ID, err)
			}
			if pt.Baseline != off {
				t.Errorf("%s %s: baseline %q, want the off point %s", tc.name, pt.ID, pt.Baseline, off)
			}
			if f := c.Flows; len(f) != 1 || f[0].Path != config.PathDC || f[0].Proto != "tcp" || f[0].CC != "cubic" || f[0].Size != 0 || f[0].Duration != tc.duration {
				t.Errorf("%s %s: flows %+v", tc.name, pt.ID, f)
			}
			label := pt.Labels[Axis]
			s, ok := ParseLabel(label)
			if !ok {
				t.Errorf("%s %s: label %q does not parse", tc.name, pt.ID, label)
				continue
			}
			if got := lookup(t, p, pt.ID, "dc.fc"); got != s.Mode {
				t.Errorf("%s %s (%s): dc.fc=%s", tc.name, pt.ID, label, got)
			}
			if got := lookup(t, p, pt.ID, "dc.scheduler"); got != s.Scheduler {
				t.Errorf("%s %s (%s): dc.scheduler=%s, want %s", tc.name, pt.ID, label, got, s.Scheduler)
			}
			if s.Mode == Off {
				for _, set := range append(append([]string{}, p.Settings...), pt.Settings...) {
					if strings.HasPrefix(set, "dc.fc.") {
						t.Errorf("%s %s: the off point sets %s", tc.name, pt.ID, set)
					}
				}
				continue
			}
			seen[s.Buffer+"/"+s.Interval] = true
			if got := lookup(t, p, pt.ID, "dc.fc.buffer"); got != s.Buffer {
				t.Errorf("%s %s (%s): dc.fc.buffer=%s", tc.name, pt.ID, label, got)
			}
			if got := lookup(t, p, pt.ID, "dc.fc.interval"); got != s.Interval {
				t.Errorf("%s %s (%s): dc.fc.interval=%s", tc.name, pt.ID, label, got)
			}
		}
		for _, b := range buffers {
			for _, i := range tc.intervals {
				if !seen[b+"/"+i] {
					t.Errorf("%s: no point at buffer %s, interval %s", tc.name, b, i)
				}
			}
		}
	}
}

// TestPresetLinks: fc-mmwave replays a mmWave trace on each link, fc-lte
// the paper's LTE trace on both, fc-unequal runs constant 3 Gbit/s links
// of 2 and 12 ms; NR's SNs where the rates need them.
func TestPresetLinks(t *testing.T) {
	p := studytest.Named(t, Study(), "fc-mmwave")
	c := studytest.Config(t, p, p.Points[0].ID)
	if c.Links[0].Trace != "lumos5g-mmwave-driving-run1" || c.Links[1].Trace != "5gophers-mmwave-walking" ||
		c.Links[0].Down.Delay != 5*time.Millisecond || c.Links[1].Down.Delay != 5*time.Millisecond || c.DC.SNBits != 18 {
		t.Errorf("fc-mmwave: traces %s, %s, delays %v, %v, SN bits %d", c.Links[0].Trace, c.Links[1].Trace, c.Links[0].Down.Delay, c.Links[1].Down.Delay, c.DC.SNBits)
	}
	p = studytest.Named(t, Study(), "fc-lte")
	c = studytest.Config(t, p, p.Points[0].ID)
	if c.Links[0].Trace != config.DefaultTrace || c.Links[1].Trace != config.DefaultTrace || c.DC.SNBits != 12 {
		t.Errorf("fc-lte: traces %s, %s, SN bits %d", c.Links[0].Trace, c.Links[1].Trace, c.DC.SNBits)
	}
	p = studytest.Named(t, Study(), "fc-unequal")
	c = studytest.Config(t, p, p.Points[0].ID)
	for i, d := range []time.Duration{2 * time.Millisecond, 12 * time.Millisecond} {
		l := c.Links[i]
		if l.Trace != "" || l.Down.Rate != 3e9 || l.Up.Rate != 3e9 || l.Down.Delay != d || l.Up.Delay != d {
			t.Errorf("fc-unequal link%d: trace %s, rates %v/%v, delays %v/%v", i+1, l.Trace, l.Down.Rate, l.Up.Rate, l.Down.Delay, l.Up.Delay)
		}
	}
}

// TestParseLabel: the labels the axis is built with read back as their
// settings; other labels do not.
func TestParseLabel(t *testing.T) {
	for _, tc := range []struct {
		label string
		want  Setting
	}{
		{Off, Setting{Mode: Off, Scheduler: "adaptive"}},
		{dddsLabel("25ms", "5ms"), Setting{Mode: DDDS, Scheduler: "credit", Buffer: "25ms", Interval: "5ms"}},
		{dddsLabel("256kB", ""), Setting{Mode: DDDS, Scheduler: "credit", Buffer: "256kB", Interval: DefaultInterval}},
	} {
		if got, ok := ParseLabel(tc.label); !ok || got != tc.want {
			t.Errorf("ParseLabel(%q) = %+v, %v; want %+v", tc.label, got, ok, tc.want)
		}
	}
	for _, bad := range []string{"*", "", "ddds", "ddds-", "ddds--5ms", "ddds-25ms-", "ddds-25ms-5ms-1", "credit-25ms"} {
		if s, ok := ParseLabel(bad); ok {
			t.Errorf("ParseLabel(%q) = %+v, want no setting", bad, s)
		}
	}
}
