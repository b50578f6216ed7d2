// Package sweeptest holds the fake runner that tests of sweeps (emu/sweep,
// emu/reproduce) execute plans with instead of emu.Run. A run writes a run
// directory whose summary.json figures are a known function of the
// configuration and the seed, so a test can recompute what an aggregate
// must report, and the runner records which runs it was asked for.
// ReadCSV and Column read a sweep.csv back for such checks.
//
// It runs no emulation and touches no kernel object; it is for tests only.
package sweeptest
