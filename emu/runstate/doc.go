// Package runstate keeps track of live emulations across emu commands: a
// state file per run in /run/emu (written before the run creates any
// namespace, naming its owner process and its nodes), lookups of a run's
// nodes for emu exec and emu addr, and the housekeeping that ends runs:
// emu down (ask the owner to stop) and emu clean (remove what runs whose
// owner is gone left behind, scoped by run id and owner PID, never by
// pattern).
package runstate
