package analysis

import (
	"bytes"
	"errors"
	"testing"

	"github.com/dc-emu/emu/analysis/qlog"
)

// TestTruncatedFileGivesPrefix cuts the server sample inside a record, as a
// killed writer leaves it, and checks the error and the partial result.
func TestTruncatedFileGivesPrefix(t *testing.T) {
	full := mustRead(t, "quicgo-server.sqlog")
	for _, frac := range []float64{0.1, 0.5, 0.93} {
		cut := int(float64(len(full)) * frac)
		for full[cut-1] == '\n' || full[cut-1] == 0x1e || full[cut-1] == '}' {
			cut++ // make sure the cut is inside a record
		}
		data := full[:cut]
		recStart := bytes.LastIndexByte(data, 0x1e) + 1 // offsets name the record's first JSON byte
		wantLine := bytes.Count(data[:recStart], []byte{'\n'}) + 1
		wantEvents := wantLine - 2 // minus the header and the cut record

		a, err := AnalyzeQlog(bytes.NewReader(data), "quicgo-server.sqlog", QlogOptions{})
		if !errors.Is(err, qlog.ErrTruncated) {
			t.Fatalf("cut at %d: err = %v, want ErrTruncated", cut, err)
		}
		var pe *qlog.ParseError
		if !errors.As(err, &pe) || pe.Line != wantLine || pe.Offset != int64(recStart) || pe.File != "quicgo-server.sqlog" {
			t.Fatalf("cut at %d: error %v, want line %d byte %d", cut, err, wantLine, recStart)
		}
		t.Logf("cut at byte %d: %v", cut, err)
		if a == nil || a.Events != wantEvents || a.Truncated == "" {
			t.Fatalf("cut at %d: partial result %v, want %d events and Truncated set", cut, a, wantEvents)
		}
		// The prefix must give the same figures as the complete records
		// alone (the file cut at the start of the partial record).
		clean, err := AnalyzeQlog(bytes.NewReader(full[:recStart]), "prefix", QlogOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if a.Totals.PacketsLost != clean.Totals.PacketsLost || a.Totals.MaxCwndBytes != clean.Totals.MaxCwndBytes ||
			a.Totals.PacketsSent != clean.Totals.PacketsSent {
			t.Errorf("cut at %d: partial totals %+v differ from the clean prefix %+v", cut, a.Totals, clean.Totals)
		}
	}
}
