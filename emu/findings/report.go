package findings

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/dc-emu/emu/emu/results"
)

// Meta is what a reproduction was made with; the caller fills it.
type Meta struct {
	Scale      string        // quick or paper
	Repeat     int           // runs per point
	Parts      []string      // the parts of the paper run (none: all)
	WallTime   time.Duration // from the first run to the report
	EmuVersion string
	Made       time.Time // when the report was made
}

// Report is a reproduction's verdicts: reproduce.json.
type Report struct {
	Version    int             `json:"version"`
	Scale      string          `json:"scale"`
	Repeat     int             `json:"repeat"`
	Parts      []string        `json:"parts,omitempty"`
	WallTimeS  float64         `json:"wall_time_s"`
	EmuVersion string          `json:"emu_version"`
	Made       time.Time       `json:"made,omitzero"`
	Counts     map[Verdict]int `json:"counts"`
	Findings   []Result        `json:"findings"`
}

const reportVersion = 1

// NewReport evaluates the findings against the results.
func NewReport(m Meta, fs []Finding, r Results) *Report {
	rep := &Report{
		Version: reportVersion, Scale: m.Scale, Repeat: m.Repeat, Parts: m.Parts,
		WallTimeS: m.WallTime.Seconds(), EmuVersion: m.EmuVersion, Made: m.Made,
		Counts: map[Verdict]int{}, Findings: Evaluate(fs, r),
	}
	for _, v := range Verdicts() {
		rep.Counts[v] = 0
	}
	for _, f := range rep.Findings {
		rep.Counts[f.Verdict]++
	}
	return rep
}

// JSON encodes the report, indented.
func (rep *Report) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", results.ReproduceFile, err)
	}
	return append(b, '\n'), nil
}

// ReadReport decodes reproduce.json.
func ReadReport(b []byte) (*Report, error) {
	var rep Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, fmt.Errorf("%s: %w", results.ReproduceFile, err)
	}
	if rep.Version != reportVersion {
		return nil, fmt.Errorf("%s: version %d, this emu reads version %d", results.ReproduceFile, rep.Version, reportVersion)
	}
	return &rep, nil
}
