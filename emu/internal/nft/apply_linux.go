package nft

import (
	"errors"
	"fmt"
	"os"

	"github.com/google/nftables"
)

// Probe reports which queue statement the kernel of namespace nsFd accepts.
// It installs a scratch table holding one queue rule that can match no
// packet (an interface name no device has), then deletes it.
func Probe(nsFd int) (Backend, error) {
	if err := checkNS(nsFd); err != nil {
		return BackendNone, err
	}
	var errs []error
	for _, b := range []Backend{BackendNative, BackendXT} {
		err := probeOne(nsFd, b)
		if err == nil {
			return b, nil
		}
		errs = append(errs, fmt.Errorf("%s: %w", b, err))
	}
	return BackendNone, fmt.Errorf("nft: probe: kernel accepts no queue statement: %w", errors.Join(errs...))
}

func probeOne(nsFd int, b Backend) error {
	table := fmt.Sprintf("emu-probe-%d", os.Getpid())
	rule := QueueRule{IIf: "emu-no-such-if", Proto: 255, Queue: 65535, Bypass: true}
	if err := apply(nsFd, table, []Chain{{Name: "probe", Hook: Prerouting, Rules: []QueueRule{rule}}}, b); err != nil {
		// A failed batch leaves nothing behind: nf_tables applies it whole or not at all.
		return err
	}
	return Delete(nsFd, table)
}

// Apply replaces table in namespace nsFd (an inet table: one rule set for
// IPv4 and IPv6) with the given base chains, in one atomic batch, using the
// queue backend Probe picks. It returns that backend.
func Apply(nsFd int, table string, chains []Chain) (Backend, error) {
	if err := validate(table, chains); err != nil {
		return BackendNone, fmt.Errorf("nft: table %s: %w", table, err)
	}
	b, err := Probe(nsFd)
	if err != nil {
		return BackendNone, err
	}
	if err := apply(nsFd, table, chains, b); err != nil {
		return b, err
	}
	return b, nil
}

func apply(nsFd int, table string, chains []Chain, b Backend) error {
	if err := checkNS(nsFd); err != nil {
		return err
	}
	c, t, err := replaceTable(nsFd, table, nftables.TableFamilyINet)
	if err != nil {
		return err
	}
	for _, ch := range chains {
		nc := addChain(c, t, ch.Name, ch.Hook, ch.Priority)
		for _, r := range ch.Rules {
			lists, err := ruleExprs(r, b)
			if err != nil {
				return fmt.Errorf("nft: table %s chain %s: %w", table, ch.Name, err)
			}
			for _, exprs := range lists {
				c.AddRule(&nftables.Rule{Table: t, Chain: nc, Exprs: exprs})
			}
		}
	}
	if err := c.Flush(); err != nil {
		return fmt.Errorf("nft: table %s: install with %s: %w", table, b, err)
	}
	return nil
}

// replaceTable starts a batch that replaces table (of family fam) in
// namespace nsFd: add, delete, add replaces an existing table of that name
// atomically and does not fail when there is none.
func replaceTable(nsFd int, table string, fam nftables.TableFamily) (*nftables.Conn, *nftables.Table, error) {
	c, err := nftables.New(nftables.WithNetNSFd(nsFd))
	if err != nil {
		return nil, nil, fmt.Errorf("nft: table %s: netlink: %w", table, err)
	}
	t := &nftables.Table{Name: table, Family: fam}
	c.AddTable(t)
	c.DelTable(t)
	c.AddTable(t)
	return c, t, nil
}

// addChain adds a filter base chain with policy accept to the batch.
func addChain(c *nftables.Conn, t *nftables.Table, name string, hook Hook, prio int) *nftables.Chain {
	accept := nftables.ChainPolicyAccept
	p := nftables.ChainPriority(prio)
	return c.AddChain(&nftables.Chain{
		Name: name, Table: t, Type: nftables.ChainTypeFilter,
		Hooknum: hookNums[hook], Priority: &p, Policy: &accept,
	})
}

// Delete removes table from namespace nsFd with its chains and rules. A
// table that does not exist is not an error.
func Delete(nsFd int, table string) error {
	if err := checkNS(nsFd); err != nil {
		return err
	}
	c, err := nftables.New(nftables.WithNetNSFd(nsFd))
	if err != nil {
		return fmt.Errorf("nft: delete table %s: netlink: %w", table, err)
	}
	if _, err := c.ListTableOfFamily(table, nftables.TableFamilyINet); err != nil {
		return nil
	}
	c.DelTable(&nftables.Table{Name: table, Family: nftables.TableFamilyINet})
	if err := c.Flush(); err != nil {
		return fmt.Errorf("nft: delete table %s: %w", table, err)
	}
	return nil
}

// checkNS refuses to act without an explicit namespace: nftables treats fd 0
// as "the current namespace", and a run must never change the host's.
func checkNS(nsFd int) error {
	if nsFd <= 0 {
		return fmt.Errorf("nft: no network namespace given (fd %d); refusing to change the current one", nsFd)
	}
	return nil
}
