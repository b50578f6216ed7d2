// Package config is an experiment's configuration and its one key grammar.
// Config is plain data with the paper's testbed as defaults
// (DefaultConfig); every parameter has a dotted key (Params, listed by emu
// config) with a unit parser and printer; shorter keys set several at once
// (link.delay, link1.rate, flow.size) and derived keys set several from one
// value (link.bw_ratio, link.delay_ratio, flows.count). Resolve applies
// settings in order of specificity, enforces that an explicitly set rate
// and a trace never silently compete, and Validate reports every problem at
// once, each naming its key.
//
// A value is parsed once, when its key is set: the Config holds typed
// values (a pdcp.Split, an object spec), not text to parse again. What a
// component owns, it checks: the DC scheduler's defaults, ranges and names
// are pdcp's (DC.Sched is a pdcp.SchedulerConfig), and Validate maps pdcp's
// field errors to the keys (dc.go). The components never see a Config,
// not even through another package (internal/layout checks it): package
// emu compiles one into their settings once per run, and SchedulesFrom
// turns its traces into each link direction's replay.Schedule.
//
// The package is pure: it touches no kernel object, and reads trace files
// only through the traces.Disk its caller gives (the user's files, as the
// user, under sudo), so emu, emu/sweep and the CLI can use it anywhere.
package config
