package analysis

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/dc-emu/emu/analysis/qlog"
)

// exportQvis exports src, a qlog file named name, for qvis.
func exportQvis(t *testing.T, src []byte, name string) ([]byte, QvisExport) {
	t.Helper()
	var out bytes.Buffer
	res, err := ExportQvis(&out, bytes.NewReader(src), name)
	if err != nil {
		t.Fatalf("ExportQvis(%s): %v", name, err)
	}
	return out.Bytes(), res
}

func TestExportQvisQuicGo(t *testing.T) {
	src := mustRead(t, "quicgo-server.sqlog")
	out, res := exportQvis(t, src, "quicgo-server.sqlog")
	if !res.HeaderChanged || res.Events != 3814 || res.Dropped != "" {
		t.Errorf("export %+v, want header changed and 3814 events", res)
	}
	recs := bytes.Split(out, []byte{'\n'})
	if len(recs[len(recs)-1]) != 0 {
		t.Fatal("output does not end with a line feed")
	}
	recs = recs[:len(recs)-1]
	for i, r := range recs {
		if len(r) == 0 || r[0] != 0x1E {
			t.Fatalf("record %d does not start with 0x1E", i+1)
		}
	}
	if len(recs)-1 != 3814 {
		t.Errorf("%d event records, want 3814 as in the source", len(recs)-1)
	}
	// The first record is what old qvis builds demand (qlog.md §6).
	var hdr struct {
		QlogVersion string `json:"qlog_version"`
		QlogFormat  string `json:"qlog_format"`
		Trace       struct {
			VantagePoint struct{ Type string } `json:"vantage_point"`
			CommonFields struct {
				ReferenceTime json.RawMessage `json:"reference_time"`
				TimeFormat    string          `json:"time_format"`
				GroupID       string          `json:"group_id"`
			} `json:"common_fields"`
		} `json:"trace"`
	}
	if err := json.Unmarshal(recs[0][1:], &hdr); err != nil {
		t.Fatal(err)
	}
	var refMs float64
	if err := json.Unmarshal(hdr.Trace.CommonFields.ReferenceTime, &refMs); err != nil {
		t.Fatalf("reference_time %s is not a number: %v", hdr.Trace.CommonFields.ReferenceTime, err)
	}
	wall, _ := time.Parse(time.RFC3339Nano, "2026-11-30T00:06:22.215955868Z")
	if hdr.QlogVersion != "0.3" || hdr.QlogFormat != "JSON-SEQ" || hdr.Trace.CommonFields.TimeFormat != "relative" ||
		hdr.Trace.VantagePoint.Type != "server" || hdr.Trace.CommonFields.GroupID != "c51ad919b188db4b756bbee6774f3fe60042" {
		t.Errorf("header %+v", hdr)
	}
	if d := refMs - float64(wall.UnixNano())/1e6; d > 1e-3 || d < -1e-3 {
		t.Errorf("reference_time %f ms, want the wall clock %v in Unix ms", refMs, wall)
	}
	// Events are copied byte for byte.
	srcRecs := bytes.Split(src, []byte{'\n'})
	for i := 1; i < len(recs); i++ {
		if !bytes.Equal(recs[i], srcRecs[i]) {
			t.Fatalf("event record %d differs:\n%s\n%s", i, recs[i], srcRecs[i])
		}
	}
	// And the export analyses like the original.
	a, err := AnalyzeQlog(bytes.NewReader(out), "export", QlogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	orig := analyzeFile(t, "testdata/quicgo-server.sqlog", QlogOptions{})
	if a.Totals.PacketsLost != orig.Totals.PacketsLost || a.Totals.MeanSRTTMs != orig.Totals.MeanSRTTMs || !a.WallClock.IsZero() {
		t.Errorf("export analyses differently: %+v vs %+v", a.Totals, orig.Totals)
	}
}

func TestExportQvisNgtcp2Unchanged(t *testing.T) {
	src := mustRead(t, "ngtcp2-client.qlog")
	out, res := exportQvis(t, src, "ngtcp2-client.qlog")
	if res.HeaderChanged || res.Events != 3354 || !bytes.Equal(out, src) {
		t.Errorf("ngtcp2 output already loads in old qvis; export %+v changed it", res)
	}
}

func TestExportQvisDropsCutRecord(t *testing.T) {
	src := mustRead(t, "quicgo-client.sqlog")
	out, res := exportQvis(t, src[:len(src)-40], "c.sqlog")
	if res.Events != 1819 || res.Dropped == "" {
		t.Errorf("export %+v, want 1819 events and the cut record dropped", res)
	}
	if _, err := AnalyzeQlog(bytes.NewReader(out), "x", QlogOptions{}); err != nil {
		t.Errorf("export of a cut file does not read cleanly: %v", err)
	}
	if _, err := ExportQvis(&bytes.Buffer{}, bytes.NewReader(nil), "empty.sqlog"); !errors.Is(err, qlog.ErrEmpty) {
		t.Errorf("empty input: %v", err)
	}
}
