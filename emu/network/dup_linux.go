package network

import (
	"fmt"

	"github.com/dc-emu/emu/emu/internal/nft"
	"github.com/dc-emu/emu/pdcp"
	"github.com/dc-emu/emu/topo"
)

// dupTable is the ip-family table of the duplication rule (the dup
// statement has no inet form, so it cannot join the queue rules' table).
const dupTable = "emu-dup"

// prioDup runs the duplication rule after the PDCP proxies' chain at the
// same hook, on the packet as the transmit proxy's verdict left it.
const prioDup = prioPDCP + 50

// planDup adds to a gateway's plan, when a scheduler duplicates (the
// run's, or a steered flow's), the rule that copies every PDU the transmit
// proxy sent to both links (from the interface iif; it went over link1) to
// the other gateway over link2. The kernel makes and sends the copy
// (nf_dup_ipv4): the transmit proxy's loop never waits for it, and the
// copy meets link2's rate limiter like any packet, so only link2's own
// queue can drop it. Such PDUs carry topo.MarkBoth, so mark and protocol
// pick exactly them, whatever other flows' schedulers do.
func (e *Emulation) planDup(p *gatewayPlan, iif string) error {
	if !e.set.usesScheduler(pdcp.KindDuplicate) {
		return nil
	}
	const dev = "l2"
	l, err := p.node.Handle.LinkByName(dev)
	if err != nil {
		return fmt.Errorf("%s: pdcp duplication: device %s: %w", p.node.NSName, dev, err)
	}
	p.dup = &nft.DupChain{Name: "pdcp-dup", Hook: nft.Prerouting, Priority: prioDup, Rules: []nft.DupRule{{
		IIf: iif, Mark: topo.MarkBoth, Proto: pdcp.IPProto,
		To: topo.LinkNextHop(p.node.Name, 1), Dev: dev, DevIndex: l.Attrs().Index,
	}}}
	return nil
}
