package config

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dc-emu/emu/pdcp"
)

// DC configures Dual Connectivity: the network-side proxy numbers and
// splits downlink packets over the two links, the device-side proxy puts
// them back in order.
//
// The scheduler's parameters are pdcp's own configuration, held typed:
// dc.split is parsed when it is set, and the defaults and ranges of
// dc.scheduler, dc.batch, dc.split and dc.active are pdcp's
// (pdcp.DefaultSchedulerConfig, pdcp.SchedulerConfig.Validate); this file
// only names their keys.
type DC struct {
	Enabled bool
	// Sched is the scheduler of the DC client's PDCP entity (dc.scheduler,
	// dc.batch, dc.split, dc.active), every field set.
	Sched       pdcp.SchedulerConfig
	TReordering time.Duration // PDCP t-Reordering
	SNBits      int           // 12 (LTE DC) or 18 (NR)
	Uplink      string        // link1, link2 or split
	// FC is the downlink's flow control (dc.fc, dc.fc.*; fc.go).
	FC FlowControl
}

// defaultDC is the paper's DC: pdcp's defaults (batches of 100 split
// 1:1, 12-bit SNs, t-Reordering 200 ms), the uplink on link1, no flow
// control.
func defaultDC() DC {
	return DC{Enabled: true, Sched: pdcp.DefaultSchedulerConfig(),
		TReordering: pdcp.DefaultTReordering, SNBits: pdcp.DefaultSNBits, Uplink: PathLink1,
		FC: defaultFC()}
}

// dcParams are the dc.* keys, the flow-control keys (dc.fc.*) last.
func dcParams() []Param {
	sched := func(c *Config) *pdcp.SchedulerConfig { return &c.DC.Sched }
	return append([]Param{
		boolParam("dc.enabled", "run the PDCP proxies for DC clients (off: DC clients use link1 only)",
			func(c *Config) *bool { return &c.DC.Enabled }),
		schedKind.param("dc.", sched),
		schedBatch.param("dc.", sched),
		schedSplit.param("dc.", sched),
		durationParam("dc.t_reordering", "PDCP t-Reordering timer of the device-side proxy",
			func(c *Config) *time.Duration { return &c.DC.TReordering }),
		intParam("dc.sn_bits", "bits", "PDCP sequence number length: 12 (LTE DC) or 18 (NR)",
			func(c *Config) *int { return &c.DC.SNBits }),
		{"dc.active", "", "active link of the active-standby scheduler: link1 or link2",
			func(c *Config) string { return linkName(c.DC.Sched.Active + 1) },
			func(c *Config, v string) error {
				n, err := parseLink(v)
				if err == nil && n == 0 {
					err = fmt.Errorf("want link1 or link2 (got %q)", v)
				}
				c.DC.Sched.Active = n - 1
				return err
			}},
		stringParam("dc.uplink", "uplink of DC clients: link1, link2 or split (through the proxies too)",
			func(c *Config) *string { return &c.DC.Uplink }),
	}, fcParams()...)
}

// The keys of pdcp.SchedulerConfig's fields under dc.
var (
	schedKind = stringField("scheduler", "", "path scheduler: "+strings.Join(pdcp.SchedulerKinds(), ", "),
		func(s *pdcp.SchedulerConfig) *string { return &s.Kind })
	schedBatch = intField("batch", "packets", "packets per batch before switching links (batch, adaptive)",
		func(s *pdcp.SchedulerConfig) *int { return &s.Batch })
	schedSplit = splitField("split", "ratio of packets on link1:link2 within a batch (batch, weighted)",
		func(s *pdcp.SchedulerConfig) *pdcp.Split { return &s.Split })
)

// splitField is a link1:link2 ratio, parsed by pdcp; the zero Split (a
// flow's "take dc.split") prints as "".
func splitField[T any](name, doc string, p func(*T) *pdcp.Split) field[T] {
	return field[T]{name, "", doc,
		func(t *T) string {
			if *p(t) == (pdcp.Split{}) {
				return ""
			}
			return p(t).String()
		},
		func(t *T, v string) (err error) {
			if v == "" {
				*p(t) = pdcp.Split{}
				return nil
			}
			*p(t), err = pdcp.ParseSplit(v)
			return err
		}}
}

// parseLink parses a link name: "" is 0, link1 1, link2 2.
func parseLink(v string) (int, error) {
	switch v {
	case "":
		return 0, nil
	case PathLink1:
		return 1, nil
	case PathLink2:
		return 2, nil
	}
	return 0, fmt.Errorf("want link1 or link2 (got %q)", v)
}

// linkName is parseLink's inverse.
func linkName(n int) string {
	switch n {
	case 1:
		return PathLink1
	case 2:
		return PathLink2
	}
	return ""
}

// schedKey is the key of a pdcp.SchedulerConfig field under prefix (dc.
// or flows.N.).
func schedKey(prefix, field string) string {
	switch field {
	case "Kind":
		return prefix + "scheduler"
	case "Batch":
		return prefix + "batch"
	case "Split":
		return prefix + "split"
	case "Active":
		return prefix + "active"
	case "SNBits":
		return prefix + "sn_bits"
	case "TReordering":
		return prefix + "t_reordering"
	}
	return prefix + strings.ToLower(field)
}

// badField reports err, a pdcp *FieldError, under the key that key names
// for its field; any other error under the key of Kind.
func badField(err error, key func(field string) string, bad func(key, format string, args ...any)) {
	var fe *pdcp.FieldError
	switch {
	case errors.As(err, &fe):
		bad(key(fe.Field), "%v (got %s)", fe.Err, fe.Value)
	case err != nil:
		bad(key("Kind"), "%v", err)
	}
}

// validateDC reports what is wrong with the dc.* keys. The scheduler's
// ranges, the SN lengths and flow control's ranges are pdcp's checks.
func (c *Config) validateDC(bad func(key, format string, args ...any)) {
	dcKey := func(field string) string { return schedKey("dc.", field) }
	badField(c.DC.Sched.Validate(), dcKey, bad)
	badField(pdcp.CheckSNBits(c.DC.SNBits), dcKey, bad)
	if c.DC.TReordering > 10*time.Second {
		bad("dc.t_reordering", "%v is beyond NR's largest value (3 s) by far", c.DC.TReordering)
	}
	switch c.DC.Uplink {
	case PathLink1, PathLink2, "split":
	default:
		bad("dc.uplink", "want link1, link2 or split (got %q)", c.DC.Uplink)
	}
	c.validateFC(bad)
}

// FlowScheduler is the PDCP scheduler of flow i: dc's, with what the flow
// sets itself (flows.N.scheduler, batch, split, active) in place.
func (c *Config) FlowScheduler(i int) pdcp.SchedulerConfig {
	w, sc := c.Flows[i].Workload, c.DC.Sched
	if w.Scheduler != "" {
		sc.Kind = w.Scheduler
	}
	if w.Batch != 0 {
		sc.Batch = w.Batch
	}
	if w.Split != (pdcp.Split{}) {
		sc.Split = w.Split
	}
	if w.Active != 0 {
		sc.Active = w.Active - 1
	}
	return sc
}

// validateFlowScheduler checks flow i's scheduler with pdcp's checks,
// naming the flow's key for a field the flow sets and dc's for one it
// takes from dc.
func (c *Config) validateFlowScheduler(i int, bad func(key, format string, args ...any)) {
	w := c.Flows[i].Workload
	badField(c.FlowScheduler(i).Validate(), func(field string) string {
		own := field == "Kind" && w.Scheduler != "" || field == "Batch" && w.Batch != 0 ||
			field == "Split" && w.Split != (pdcp.Split{}) || field == "Active" && w.Active != 0
		if own {
			return schedKey(fmt.Sprintf("flows.%d.", i), field)
		}
		return schedKey("dc.", field)
	}, bad)
}
