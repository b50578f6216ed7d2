package config

import "fmt"

// retiredDatapath answers dc.datapath, a key that chose between two PDCP
// data paths until the NFQUEUE proxies were removed (issue #49): the batch
// path (TUN and UDP with GSO/GRO) carried 2.5 times their TCP goodput and
// dropped packets one at a time as a radio link does. Configurations,
// sweep plans and run directories written before name it; batch is what
// every run does now, so it is taken as it is, and nfqueue is refused
// rather than quietly run on the other path.
func retiredDatapath(value string) error {
	if value == "batch" {
		return nil
	}
	return fmt.Errorf("the NFQUEUE PDCP proxies were removed: PDCP runs on the batch path (TUN and UDP with GSO/GRO) only, which a run takes without the key; drop dc.datapath (its results from before still read with emu analyze)")
}
