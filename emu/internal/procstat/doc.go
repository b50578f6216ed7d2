// Package procstat reads what the kernel says about CPU time: per thread
// and per process from /proc/<pid>/task/<tid>/{stat,schedstat} and
// /proc/<pid>/stat, and for the whole host from /proc/stat. A run uses it
// to tell whether the host kept up with the emulation: the emulator's
// packet threads must get a CPU when they wake (run-queue wait), an
// endpoint that uses a whole core is limited by the host rather than by
// the emulated network, and a virtual machine's stolen time is time the
// emulation did not get.
//
// Stages: the parsers (ParseStat, ParseSchedstat, ParseHost) are pure and
// fuzzed; the readers (ReadThread, ReadProcess, ReadHost; Linux only) read
// the files and stamp each reading with the time it was taken; Usage and
// HostUsage turn two readings into fractions of the time between them.
// TID gives a goroutine locked to its OS thread the id to find that thread
// by later, and NameThread names it so it shows in top -H and in readings.
//
// It reads, never writes, /proc, and keeps no state between calls.
package procstat
