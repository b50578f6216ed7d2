// Package replay turns traces into the rate, delay and loss changes of a
// link direction (emu/config loads the traces a configuration names into
// a Schedule per direction) and plays them as a pure
// function of the time since the replay started, returning what holds now
// and when the next change is due (quic-go's pacer style: the caller owns
// the one timer). Outages are timed so that HTB's debt from the packet that
// crosses as one starts cannot shut the link past its end.
//
// The package is pure: it never sleeps and touches no kernel object;
// package link runs its schedule against a rate limiter.
package replay
