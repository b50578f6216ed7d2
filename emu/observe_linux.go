package emu

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/dc-emu/emu/analysis"
	"github.com/dc-emu/emu/emu/capture"
	"github.com/dc-emu/emu/emu/results"
)

// startCaptures starts run.pcap's captures, each from inside its node's
// namespace. With run.pcap off it does nothing at all.
func (r *runner) startCaptures() error {
	targets, err := pcapTargets(r.em.Net.Spec, r.cfg.Observe.Pcap)
	if err != nil || len(targets) == 0 {
		return err
	}
	if err := results.MkdirAll(r.file(results.PcapDir)); err != nil {
		return fmt.Errorf("run.pcap: %w", err)
	}
	snaplen := r.cfg.Observe.PcapSnaplen
	if snaplen == 0 {
		snaplen = capture.MaxSnaplen
	}
	for _, t := range targets {
		node, err := r.em.Net.Node(t.Node)
		if err != nil {
			return errors.Join(fmt.Errorf("run.pcap: %w", err), r.stopCaptures())
		}
		rel := results.PcapFile(t.Node, t.Iface)
		c, err := capture.Start(context.Background(), int(node.NS), t.Iface, snaplen, r.file(rel))
		if err != nil {
			return errors.Join(fmt.Errorf("run.pcap: %s:%s: %w", t.Node, t.Iface, err), r.stopCaptures())
		}
		r.obs.captures = append(r.obs.captures, &runCapture{res: results.CaptureResult{Node: t.Node, Iface: t.Iface, File: rel}, c: c})
	}
	return nil
}

// stopCaptures ends the captures and records their counts.
func (r *runner) stopCaptures() error {
	var errs []error
	for _, rc := range r.obs.captures {
		if rc.c == nil {
			continue
		}
		st, err := rc.c.Close()
		rc.c = nil
		rc.res.Packets, rc.res.Received, rc.res.Dropped, rc.res.Split = st.Packets, st.Received, st.Dropped, st.Split
		if err != nil {
			rc.res.Error = err.Error()
			errs = append(errs, fmt.Errorf("run.pcap: %s:%s: %w", rc.res.Node, rc.res.Iface, err))
		}
		if st.Dropped > 0 {
			r.em.Warnings = append(r.em.Warnings, fmt.Sprintf("capture %s dropped %d of %d packets (its ring was full): the file misses them",
				rc.res.File, st.Dropped, st.Received))
		}
	}
	return errors.Join(errs...)
}

// captureList is the captures for summary.json.
func (r *runner) captureList() []results.CaptureResult {
	var list []results.CaptureResult
	for _, rc := range r.obs.captures {
		list = append(list, rc.res)
	}
	return list
}

// captureMap is the captures for counters.json, by "<node>-<iface>".
func (r *runner) captureMap() map[string]results.CaptureResult {
	if len(r.obs.captures) == 0 {
		return nil
	}
	m := map[string]results.CaptureResult{}
	for _, rc := range r.obs.captures {
		m[rc.res.Node+"-"+rc.res.Iface] = rc.res
	}
	return m
}

// readFlowDelays reads the delay series of flow i: RTT from its server's
// TCP_INFO log (TCP) or the sender's qlog (QUIC, sampled at
// run.tcpinfo_interval), one-way delay from its client's log. A log that
// is missing gives an empty series; one that is unreadable, a warning too.
func (r *runner) readFlowDelays(i int) flowDelays {
	f := r.cfg.Flows[i]
	var d flowDelays
	warn := func(err error) {
		if !errors.Is(err, os.ErrNotExist) {
			r.em.Warnings = append(r.em.Warnings, fmt.Sprintf("flow %s: %v", f.Name, err))
		}
	}
	if f.Proto == "tcp" {
		rows, err := readLog(r.file(results.TCPInfoFile(f.Name)), results.ReadTCPInfo)
		if err != nil {
			warn(err)
		}
		d.rtt = analysis.TCPInfoSeries(rows)
	} else {
		for _, side := range []string{"server", "client"} {
			a, err := readQlog(r.file(results.QlogFile(f.Name, side)))
			if err != nil {
				warn(err)
			}
			if a == nil {
				continue
			}
			// quic-go anchors its qlog to the wall clock; ngtcp2's starts
			// when the connection does, about the flow's start.
			offset := f.Start.Seconds()
			if !a.WallClock.IsZero() {
				offset = a.WallClock.Sub(r.em.Epoch).Seconds()
			}
			if d.rtt = analysis.QlogSRTTSeries(a, r.cfg.Observe.TCPInfoInterval, offset); d.rtt.Len() > 0 {
				break // the sender's, else the client's own estimate
			}
		}
	}
	{ // written by the client, or the server of an upload
		rows, err := results.ReadOWDFile(r.file(results.OWDFile(f.Name)))
		if err != nil {
			warn(err)
		}
		d.owd = analysis.OWDSeries(rows)
	}
	return d
}
