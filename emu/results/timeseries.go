package results

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// BinWidth is the resolution of timeseries.csv (docs/results.md).
const BinWidth = 100 * time.Millisecond

// SeriesTable is timeseries.csv: a header row of column names, then one row
// of numbers per bin. emu fills it from the flows' receive logs and the
// rate limiters' samples; analysis reads it back.
type SeriesTable struct {
	Header []string
	Rows   [][]float64
}

// Write writes the table as CSV, numbers in their shortest exact form and
// NaN (not measured in that bin) as an empty cell, as ReadTimeseries reads
// it.
func (s *SeriesTable) Write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, strings.Join(s.Header, ","))
	for _, row := range s.Rows {
		for i, v := range row {
			if i > 0 {
				bw.WriteByte(',')
			}
			if math.IsNaN(v) {
				continue
			}
			bw.WriteString(strconv.FormatFloat(v, 'f', -1, 64))
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// Round3 rounds a figure to the three decimals results are written with.
func Round3(v float64) float64 {
	return float64(int64(v*1000+0.5)) / 1000
}
