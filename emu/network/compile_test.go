package network

import (
	"testing"
	"time"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/link"
	"github.com/dc-emu/emu/pdcp"
)

// TestCompile checks that compile hands each network component the values
// the keys set, and nothing of the configuration itself: the DC scheduler
// (dc.batch from the key to pdcp), a steered flow's own scheduler and a
// link direction's shape with its jitter as a coefficient.
func TestCompile(t *testing.T) {
	sets, err := config.ParseSettings([]string{
		"link.trace=none", "dc.batch=150", "dc.split=3:1", "dc.sn_bits=18", "link2.down.delay=30ms", "link1.up.queue=50ms",
		"flows.count=3", "flows.1.scheduler=active-standby", "flows.1.active=link2",
		"flows.2.kind=objects", "flows.2.objects=fixed:1MB", "flows.2.count=4", "flows.0.size=5MB", "flows.0.proto=tcp",
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Resolve("throughput", sets)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Seed = 7
	c := compile(&cfg)
	if want := (pdcp.SchedulerConfig{Kind: pdcp.KindBatch, Batch: 150, Split: pdcp.Split{3, 1}}); c.pdcp.Sched != want || c.pdcp.SNBits != 18 || c.pdcp.TReordering != 200*time.Millisecond {
		t.Errorf("pdcp: %+v, want scheduler %+v, 18-bit SNs, t-Reordering 200ms", c.pdcp, want)
	}
	if len(c.steered) != 1 || c.steered[0].flow != 1 ||
		c.steered[0].sched != (pdcp.SchedulerConfig{Kind: pdcp.KindActiveStandby, Batch: 150, Split: pdcp.Split{3, 1}, Active: 1}) {
		t.Errorf("steered: %+v, want flow 1 active-standby on link2", c.steered)
	}
	if s := c.links[1][0]; s.Delay != 30*time.Millisecond || s.JitterCV != 0.1 || s.Jitter != 0 || s.Rate != 20e6 || !s.Impaired() {
		t.Errorf("link2.down: %+v", s)
	}
	if q := c.links[0][1].Queue; q != (link.QueueLimit{Time: 50 * time.Millisecond}) {
		t.Errorf("link1.up queue: %+v", q)
	}
	if p := ServerPort(cfg.Flows[0], 0); p != 8443 {
		t.Errorf("flow 0 (TCP) serves on port %d, want 8443", p)
	}
	if p := ServerPort(cfg.Flows[1], 1); p != 4434 {
		t.Errorf("flow 1 (QUIC) serves on port %d, want 4434", p)
	}
}
