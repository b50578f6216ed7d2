package dcproxy

import (
	"time"

	"github.com/dc-emu/emu/pdcp"
)

// Config is what the proxies of one direction take: the DC client's
// scheduler (its zero fields are pdcp's defaults) and the SN length and
// t-Reordering both halves share. Its errors are pdcp's, naming these
// fields.
type Config struct {
	Sched       pdcp.SchedulerConfig
	SNBits      int
	TReordering time.Duration
}
