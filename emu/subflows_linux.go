package emu

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"slices"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/internal/invoker"
	"github.com/dc-emu/emu/topo"
)

// tcpInfoRows reads the server's TCP_INFO log of flow f; nil without
// error when the flow has none (not MPTCP, or it never connected).
func (r *runner) tcpInfoRows(f config.Flow) ([]results.TCPInfoRow, error) {
	if f.Path != config.PathMPTCP {
		return nil, nil
	}
	path := r.file(results.TCPInfoFile(f.Name))
	fh, err := invoker.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return results.ReadTCPInfo(fh, filepath.FromSlash(results.TCPInfoFile(f.Name)))
}

// mptcpLink names the link a subflow from the MPTCP client's address a
// takes: the client has one address per link, in link order.
func mptcpLink(a netip.Addr) string {
	if i := slices.Index(topo.ClientAddrs(topo.PathMPTCP), a); i >= 0 {
		return fmt.Sprintf("link%d", i+1)
	}
	return ""
}

// addSubflows puts an MPTCP flow's subflows into its result; a problem
// with the log, or a subflow missing, is a warning of the run.
func (r *runner) addSubflows(s *results.Summary, fr *results.FlowResult, f config.Flow) {
	rows, err := r.tcpInfoRows(f)
	if err != nil {
		s.Warnings = append(s.Warnings, fmt.Sprintf("flow %s: no per-subflow results: %v", f.Name, err))
		return
	}
	if rows == nil {
		return
	}
	sfs, tot := results.Subflows(rows, mptcpLink)
	fr.Subflows, fr.SubflowTotals = sfs, &tot
	links := map[string]bool{}
	for _, sf := range sfs {
		links[sf.Link] = true
	}
	for i := range r.cfg.Links {
		if l := fmt.Sprintf("link%d", i+1); !links[l] {
			s.Warnings = append(s.Warnings, fmt.Sprintf("flow %s: MPTCP opened no subflow over %s", f.Name, l))
		}
	}
}

// addSubflowSeries appends the subflows' columns of every MPTCP flow to
// timeseries.csv's table (whose rows start with their bin's end).
func (r *runner) addSubflowSeries(t *results.SeriesTable) error {
	ends := make([]float64, len(t.Rows))
	for k, row := range t.Rows {
		ends[k] = row[0]
	}
	for _, f := range r.cfg.Flows {
		rows, err := r.tcpInfoRows(f)
		if err != nil {
			return err
		}
		header, cols := results.SubflowSeries(f.Name, rows, ends, results.BinWidth.Seconds())
		t.Header = append(t.Header, header...)
		for _, c := range cols {
			for k := range t.Rows {
				t.Rows[k] = append(t.Rows[k], c[k])
			}
		}
	}
	return nil
}
