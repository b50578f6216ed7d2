// Package runloop decides the lifecycle of one run: when each flow's
// server and client start, when the run is over and why, when the links
// are sampled and the live line printed, and how the endpoints are stopped.
// It is a state machine with time as an input (quic-go's pacer style): the
// caller applies what happened (Apply, each Event with its time) and asks
// what is due now (Step), which returns the actions to carry out and the
// next deadline; the caller owns the one timer.
//
// A run passes through four stages, in order:
//
//  1. Servers: each flow's server is started and must report ready within
//     ReadyTimeout, one flow after the other.
//  2. Flows: each client starts at its offset from the epoch (or as soon as
//     the servers are ready, if that is later); the links are sampled every
//     SamplePeriod and the live line printed every StatusPeriod. The run
//     fails when a client cannot start or fails, a started flow has had no
//     new data for the run's grace, a server exits while its flow is
//     unfinished, the emulation fails, or, when every flow has a duration,
//     the flows' planned end plus the grace has passed; it is interrupted
//     from outside (Ctrl-C); it is ok when every client has exited without
//     failing. The first of these ends the stage with a Stop action.
//  3. Stopping the clients: each running client is asked to end (it reports
//     what it measured) and killed if it has not within StopTimeout.
//  4. Stopping the servers: likewise, once every client has exited, so
//     their qlog files end cleanly. The run is Over when every endpoint
//     process has exited; Flow then holds what each flow reported.
//
// A flow is seen only through its two processes and what they report:
// progress (a count of bytes that only grows, which feeds the stall
// watchdog and the live line), one done event with its outcome, and the
// exit. Flow kinds other than a bulk download (request/response,
// constant-rate UDP, object sets) fit as long as they report so; their own
// figures (RTT, one-way delay, transactions) travel untouched in
// Done.Result to the summary.
//
// The package is pure: it reads no clock, never sleeps, starts no
// goroutine and touches no process or kernel object; a Run belongs to one
// goroutine, and there is no package-level state, so any number of runs can
// go on in one process. Package emu feeds it the events of the endpoint
// processes and carries out its actions.
package runloop
