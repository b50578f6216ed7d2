package network

// Thread is one of the emulator's own packet threads, by name ("delay
// link1.down", "pdcp tx down") and kernel thread id.
type Thread struct {
	Name string
	TID  int
}

// PacketThreads lists the emulator's threads whose scheduling a run's
// fidelity verdict judges: the delay lines. The PDCP proxies' loops are
// real-time only while light (dcproxy), so their scheduling is judged by
// the receiving socket's wait (SocketWaitMs) instead. The link
// sampler is not among them: a reading it takes late says so itself
// (Sample.Took) and is left out of the figures, so its wait does not make
// the run's figures wrong; counters.json reports it.
func (e *Emulation) PacketThreads() []Thread {
	var out []Thread
	for _, d := range e.dirs {
		if d.Loop != nil && d.Loop.TID() != 0 {
			out = append(out, Thread{"delay " + d.Name, d.Loop.TID()})
		}
	}
	return out
}
