// Package reproduce runs the reproduction of "QUIC Throughput and
// Fairness over Dual Connectivity" that `emu reproduce` does: the presets
// of the chosen parts (paper.ReproducePresets) at one scale, each an
// ordinary sweep in a directory of its own under the reproduction's
// directory, then the findings (package findings) judged against them in
// one report.
//
// Stages: NewPlan resolves every preset's sweep up front (a bad scale or
// part, or a preset that does not resolve, stops it before anything runs);
// Plan.Estimate gives the runs and the expected wall time, in total and
// still to do in a directory, and WritePlan prints them (the dry run and
// the first lines of a real one); Execute runs the presets' sweeps one
// after the other through sweep.Prepare, sweep.Execute and sweep.Finish,
// so rerunning with the same directory resumes each where it stopped;
// WriteReport aggregates every preset directory there is, adapts each
// sweep table to a findings.Sweep, draws the figures with sweep.Figures
// and writes report.html and reproduce.json. Job is these stages as a
// sweep.Job, which a sweep.Session runs as it runs a sweep.
//
// The package is pure: the Runner that does a run comes from the caller
// (the CLI passes emu.Run), as for sweeps. It does not decide what the
// paper found or how a finding is judged (package findings), nor how a
// sweep is planned, run or aggregated (package sweep).
package reproduce
