package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dc-emu/emu/emu/replay"
)

// TestSchedulesFollowTheSources: a configuration's delay and loss sources
// become each direction's schedule; a direction's own trace beside a link
// trace that carries the same column is an error naming both keys.
func TestSchedulesFollowTheSources(t *testing.T) {
	dir := t.TempDir()
	delay := filepath.Join(dir, "d.delay")
	os.WriteFile(delay, []byte("10\n20\n"), 0o644)
	resolve := func(sets ...string) *Config {
		t.Helper()
		var ss []Setting
		for _, s := range sets {
			st, err := ParseSetting(s)
			if err != nil {
				t.Fatal(err)
			}
			ss = append(ss, st)
		}
		c, err := Resolve("throughput", ss)
		if err != nil {
			t.Fatal(err)
		}
		return &c
	}

	s, err := Schedules(resolve("link1.trace=starlink", "link2.trace=none", "link2.down.delay="+delay))
	if err != nil {
		t.Fatal(err)
	}
	for d := range 2 {
		if im := s[0][d].Impair; im == nil || im.Delay == nil || im.Delay != s[0][0].Rate.Trace || im.Loss != nil {
			t.Errorf("link1 dir %d: %+v; want the Starlink trace's delay", d, im)
		}
	}
	if im := s[1][0].Impair; im == nil || im.Delay == nil || im.Delay.Source != delay || s[1][0].Rate != nil {
		t.Errorf("link2.down: %+v; want %s's delay at a constant rate", im, delay)
	}
	if s[1][1].Impair != nil {
		t.Errorf("link2.up: %+v; want constant", s[1][1].Impair)
	}
	// StaticA carries no delay: the constants hold.
	if s, err := Schedules(resolve()); err != nil || s[0][0].Impair != nil {
		t.Errorf("default configuration: %v, %+v", err, s[0][0].Impair)
	}
	// A constant holds the delay of a direction its link's trace would drive.
	if s, err := Schedules(resolve("link1.trace=starlink", "link1.up.delay=11ms")); err != nil || s[0][1].Impair != nil || s[0][0].Impair == nil {
		t.Errorf("explicit constant: %v, down %+v, up %+v", err, s[0][0].Impair, s[0][1].Impair)
	}

	for _, c := range []struct {
		sets []string
		want string
	}{
		{[]string{"link1.trace=starlink", "link1.down.delay=" + delay}, "link1.down.delay_trace=" + delay + " and link1.trace=starlink both set the delay"},
		{[]string{"link1.down.delay=nosuch.delay"}, "link1.down.delay_trace: no such trace"},
		{[]string{"link1.down.delay=StaticA"}, "link1.down.delay_trace: StaticA carries no delay"},
	} {
		_, err := Schedules(resolve(c.sets...))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want it to contain %q", c.sets, err, c.want)
		}
	}
}

// TestImpairmentTraceOptions: offset, duration and time scale reshape a
// delay trace as they do a rate trace.
func TestImpairmentTraceOptions(t *testing.T) {
	dir := t.TempDir()
	delay := filepath.Join(dir, "d.delay")
	os.WriteFile(delay, []byte("10\n20\n30\n40\n"), 0o644)
	tr, err := LoadTrace(delay, TraceOptions{Offset: 10 * time.Millisecond, Duration: 20 * time.Millisecond, TimeScale: 2, Step: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	im := replay.Impairments{Delay: tr, Loop: true}
	for _, c := range []struct{ el, want time.Duration }{{0, 20 * time.Millisecond}, {19 * time.Millisecond, 20 * time.Millisecond}, {20 * time.Millisecond, 30 * time.Millisecond}, {40 * time.Millisecond, 20 * time.Millisecond}} {
		if d, _, _, _ := im.At(c.el); d != c.want {
			t.Errorf("At(%v) = %v, want %v", c.el, d, c.want)
		}
	}
}
