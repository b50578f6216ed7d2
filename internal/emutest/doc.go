// Package emutest holds the helpers emu's tests share: skipping when a test
// needs root or a kernel feature it lacks (saying why, never passing
// silently), private network namespaces that are removed when the test ends
// even if it fails, a machine-wide lock so tests that measure rates or delays
// never run beside each other, a witness process that tells a stall of the
// whole machine from one of emu's, condition polling instead of sleeps, golden
// files, the seed corpus of fuzz targets, and the emu binary built for
// tests that run it as a process.
package emutest
