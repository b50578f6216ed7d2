package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/dc-emu/emu/emu/record"
	"github.com/dc-emu/emu/emu/units"
)

func newRecordCmd(e *env) *cobra.Command {
	var (
		to, out, maxRate string
		via              []string
		duration         time.Duration
		packet           int
	)
	c := &cobra.Command{
		Use:   "record --to HOST[:PORT] --duration D --out PREFIX [--via ADDR]...",
		Short: "Record a live path (or two at once) into traces emu replays",
		Long: fmt.Sprintf(`record measures the path to a far end running "emu record serve": in each
direction a paced UDP stream that keeps a small queue standing at the
bottleneck (every arrival stamped, as Saturatr did) and a light probe every
%v. It writes what emu replays, in %v steps:

  PREFIX.down, PREFIX.up   Mahimahi delivery opportunities (mm-link)
  PREFIX.delay, .loss      the downlink's one-way delay (ms) and loss, a line a step
  PREFIX.csv               emu's plain CSV: time_s, down_mbps, up_mbps,
                           down_delay_ms, up_delay_ms, down_loss, up_loss
  PREFIX.probes.csv        the light probes' delay under the load
  PREFIX.provenance.txt     where, when and how; warnings
  PREFIX.json              the raw measurements and settings

Rates are at the IP layer, as a link's rate is set. Two --via (addresses
or interfaces) record two paths at once, on one clock, into PREFIX-1.* and
PREFIX-2.*. One-way delay is exact when both ends run on one host; between
hosts the clocks' offset is estimated from the least round trip and its
uncertainty written beside it. Ctrl-C stops the recording and writes what
was recorded, marked interrupted.`, record.ProbeEvery, record.Step),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if to == "" {
				return usagef("record: --to HOST[:PORT] is required (the far end, running emu record serve)")
			}
			if out == "" {
				return usagef("record: --out PREFIX is required")
			}
			if duration <= 0 {
				return usagef("record: --duration must be above 0 (e.g. 60s)")
			}
			rate, err := units.ParseRate(maxRate)
			if err != nil {
				return usagef("record: --max-rate: %v", err)
			}
			// The directory first, as emu run makes its --out: a path that
			// cannot be written fails now, not after the recording.
			if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
				return fmt.Errorf("record: --out %s: %w", out, err)
			}
			fmt.Fprintf(e.stderr, "record: %v to %s, %d path(s); Ctrl-C stops and keeps what was recorded\n", duration, to, max(len(via), 1))
			rec, err := record.Record(e.ctx, record.Options{To: to, Via: via, Duration: duration, Packet: packet, MaxRate: rate, Progress: e.stderr})
			if err != nil {
				return err
			}
			files, err := record.WriteFiles(rec, out, os.Args)
			if err != nil {
				return err
			}
			for _, f := range files {
				st := f.Trace.Stats()
				fmt.Fprintf(e.stdout, "%s.*: down %.2f Mbit/s, up %.2f Mbit/s, delay %.2f / %.2f ms, loss %.2f / %.2f %%\n",
					f.Prefix, st.Down.Mean, st.Up.Mean, st.Delay.P50, st.UpDelay.P50, 100*st.Loss.Mean, 100*st.UpLoss.Mean)
				for _, w := range f.Warnings {
					fmt.Fprintf(e.stderr, "record: warning: %s: %s\n", f.Prefix, w)
				}
			}
			fmt.Fprintf(e.stdout, "provenance: %s%s\n", out, record.SuffixProvenance)
			if rec.Interrupted {
				return fmt.Errorf("record: interrupted after %.1f s; what was recorded is in %s.*", rec.Recorded.Seconds(), out)
			}
			return nil
		},
	}
	fl := c.Flags()
	fl.StringVar(&to, "to", "", "the far end, HOST[:PORT] (default port "+fmt.Sprint(record.DefaultPort)+")")
	fl.DurationVar(&duration, "duration", 0, "how long to record (e.g. 60s)")
	fl.StringVar(&out, "out", "", "prefix of the files written")
	fl.StringSliceVar(&via, "via", nil, "local address or interface of a path; twice records two paths at once")
	fl.IntVar(&packet, "packet", record.DefaultPacket, "IP bytes of a load packet")
	fl.StringVar(&maxRate, "max-rate", "2gbit", "the most either direction's sender sends")
	c.AddCommand(newRecordServeCmd(e))
	return c
}

func newRecordServeCmd(e *env) *cobra.Command {
	var listen string
	c := &cobra.Command{
		Use:   "serve [--listen ADDR:PORT]",
		Short: "The far end of emu record: answer recording requests until interrupted",
		Long: fmt.Sprintf(`serve listens for "emu record" on ADDR:PORT (TCP for control, UDP for the
streams; default every address, port %d) and answers every recording
request until Ctrl-C. It refuses anything else that reaches the port.`, record.DefaultPort),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := record.Listen(listen, e.stderr)
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stderr, "record serve: listening on %s\n", s.Addr())
			return s.Serve(e.ctx)
		},
	}
	c.Flags().StringVar(&listen, "listen", "", fmt.Sprintf("address and port to listen on (default :%d)", record.DefaultPort))
	return c
}
