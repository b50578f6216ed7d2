package emu

import (
	"errors"
	"io"

	"github.com/dc-emu/emu/analysis"
	"github.com/dc-emu/emu/analysis/qlog"
	"github.com/dc-emu/emu/emu/capture"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/internal/invoker"
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

// readQlog analyses a qlog file; a file cut short still gives its
// complete records.
func readQlog(path string) (*analysis.ConnAnalysis, error) {
	a, err := readLog(path, func(r io.Reader, name string) (*analysis.ConnAnalysis, error) {
		return analysis.AnalyzeQlog(r, name, analysis.QlogOptions{})
	})
	if errors.Is(err, qlog.ErrTruncated) {
		return a, nil
	}
	return a, err
}

// readLog reads the log at path with read, which names it by its path in
// errors (results.ReadFlowSamples, results.ReadTCPInfo, a qlog analysis).
func readLog[T any](path string, read func(io.Reader, string) (T, error)) (T, error) {
	f, err := invoker.Open(path) // the user's run directory: as the user
	if err != nil {
		var zero T
		return zero, err
	}
	defer f.Close()
	return read(f, path)
}
