package cli

import (
	"runtime"

	"github.com/spf13/cobra"

	"github.com/dc-emu/emu/emu/host"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/emu/sweep"
)

// execFlags are how emu sweep and emu reproduce run their runs: at once,
// again when degraded, and what they keep of each run's qlogs.
type execFlags struct {
	jobs   string
	reruns int
	qlogs  string
}

func (f *execFlags) register(c *cobra.Command, jobsUsage string) {
	c.Flags().StringVarP(&f.jobs, "jobs", "j", "1", jobsUsage)
	c.Flags().IntVar(&f.reruns, "reruns", sweep.DefaultReruns, "times a run whose emulation came back degraded is run again, every attempt kept (0: never)")
	c.Flags().StringVar(&f.qlogs, "qlogs", string(results.QlogsGzip), "what becomes of each run's qlog files once it ended: gzip (about 17 times smaller; emu analyze reads them), keep, or drop (summaries and time series stay)")
}

// options checks the flags and returns the sweep options they make, with
// the machine's cores, CPU clock and the free space of dir.
func (f *execFlags) options(dir string) (sweep.Options, error) {
	jobs, err := sweep.ParseJobs(f.jobs)
	if err != nil {
		return sweep.Options{}, usageError{err}
	}
	if f.reruns < 0 {
		return sweep.Options{}, usagef("--reruns %d: want how many times a degraded run is run again (0 or more)", f.reruns)
	}
	qlogs, err := results.ParseQlogPolicy(f.qlogs)
	if err != nil {
		return sweep.Options{}, usagef("--%v", err)
	}
	reruns := f.reruns
	return sweep.Options{
		Jobs: jobs, Cores: runtime.NumCPU(), CPUTime: treeCPU, Reruns: &reruns, Qlogs: qlogs,
		FreeSpace: func() (uint64, error) { return host.FreeSpace(dir) },
	}, nil
}
