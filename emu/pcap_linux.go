package emu

import (
	"context"
	"errors"
	"fmt"

	"github.com/dc-emu/emu/emu/capture"
	"github.com/dc-emu/emu/emu/results"
)

// observation is what a run records about its flows besides their
// results: packet captures while it runs.
type observation struct {
	captures []*runCapture
}

type runCapture struct {
	res results.CaptureResult
	c   *capture.Capture
}

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
