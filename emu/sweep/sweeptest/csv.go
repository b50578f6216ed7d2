package sweeptest

import (
	"encoding/csv"
	"os"
	"slices"
	"testing"

	"github.com/dc-emu/emu/emu/results"
)

// ReadCSV reads the sweep.csv of the sweep directory dir: the header,
// then a row per point. Any error fails tb.
func ReadCSV(tb testing.TB, dir string) [][]string {
	tb.Helper()
	path := results.SweepDir(dir).File(results.CSVFile)
	fh, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer fh.Close()
	rows, err := csv.NewReader(fh).ReadAll()
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	if len(rows) == 0 {
		tb.Fatalf("%s: no header", path)
	}
	return rows
}

// Column is the index of the column name in a sweep.csv header; tb fails
// if there is no such column.
func Column(tb testing.TB, header []string, name string) int {
	tb.Helper()
	i := slices.Index(header, name)
	if i < 0 {
		tb.Fatalf("%s has no column %s: %v", results.CSVFile, name, header)
	}
	return i
}
