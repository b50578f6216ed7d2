package tracefmt

import (
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

const s = time.Second

func read(t *testing.T, in string, o ReadOptions) *Trace {
	t.Helper()
	tr, err := Read(strings.NewReader(in), "test", o)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func sameSteps(t *testing.T, got *Trace, want []Step, end time.Duration) {
	t.Helper()
	if !reflect.DeepEqual(got.Steps, want) || got.End != end {
		t.Errorf("got steps %+v end %v\nwant     %+v end %v", got.Steps, got.End, want, end)
	}
}

func TestReadRaca(t *testing.T) {
	in := racaHeader +
		racaRow("2018.02.12_16.14.02", "-", "-") + // missing at the start: 0
		racaRow("2018.02.12_16.14.02", "1000", "20") + // repeated timestamp
		racaRow("2018.02.12_16.14.03", "2000", "-") + // missing: hold 20
		racaRow("2018.02.12_16.14.05", "0", "30") + // skipped second, outage
		racaRow("2018.02.12_16.14.06", "-", "40")
	tr := read(t, in, ReadOptions{})
	if tr.Format != FormatRaca || !tr.HasUp || tr.HasDelay || tr.HasLoss {
		t.Errorf("format %s, HasUp %v", tr.Format, tr.HasUp)
	}
	// One row per second, timestamps ignored.
	sameSteps(t, tr, []Step{
		{At: 0, Down: 0, Up: 0}, {At: 1 * s, Down: 1e6, Up: 20e3}, {At: 2 * s, Down: 2e6, Up: 20e3},
		{At: 3 * s, Down: 0, Up: 30e3}, {At: 4 * s, Down: 0, Up: 40e3},
	}, 5*s)

	// By timestamps: first row of each second holds until the next second
	// seen; the last timestamp ends the trace.
	tr = read(t, in, ReadOptions{Timestamps: true})
	sameSteps(t, tr, []Step{{At: 0}, {At: 1 * s, Down: 2e6, Up: 20e3}, {At: 3 * s, Down: 0, Up: 30e3}}, 4*s)

	// Columns are found by name, in any order; no UL_bitrate, no uplink.
	tr = read(t, "State,DL_bitrate,Timestamp\nD,100,2018.02.12_16.14.02\nD,300,2018.02.12_16.14.03\n", ReadOptions{})
	sameSteps(t, tr, []Step{{At: 0, Down: 100e3}, {At: s, Down: 300e3}}, 2*s)
	if tr.HasUp {
		t.Error("HasUp without UL_bitrate")
	}
	// Without a Timestamp column rows still work, but not timestamp replay.
	read(t, "DL_bitrate\n5\n", ReadOptions{Format: FormatRaca})
	if _, err := Read(strings.NewReader("DL_bitrate\n5\n"), "x", ReadOptions{Format: FormatRaca, Timestamps: true}); err == nil {
		t.Error("timestamp replay without a Timestamp column")
	}
}

func TestReadRacaRealFile(t *testing.T) {
	f, err := os.Open("../traces/raca4g-static-A.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := Read(f, "raca4g-static-A.csv", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// First rows of the file: 12906, 12906, 14751 kbit/s.
	if tr.Steps[0].Down != 12906e3 || tr.Steps[1].Down != 12906e3 || tr.Steps[2].Down != 14751e3 || tr.Steps[0].Up != 218e3 {
		t.Errorf("first steps %+v", tr.Steps[:3])
	}
	if got := tr.Stats().Down.Mean; math.Abs(got-3.855) > 0.0005 {
		t.Errorf("mean %v Mbit/s, want 3.855", got)
	}
}

func TestReadMahimahi(t *testing.T) {
	// Windows of 10 ms: [0,10) has 3 packets, [10,20) none, [20,30) none,
	// [30,35] has the last 2 (35 is the end, the loop period).
	in := "0\n0\n7\n\n31\n35\n"
	tr := read(t, in, ReadOptions{})
	const pkt = MahimahiPacketBits
	sameSteps(t, tr, []Step{{At: 0, Down: 3 * pkt / 0.010}, {At: 10 * time.Millisecond}, {At: 30 * time.Millisecond, Down: 2 * pkt / 0.005}},
		35*time.Millisecond)
	if got, want := tr.Stats().Down.Mean, 5*pkt/0.035/1e6; math.Abs(got-want) > 1e-9 {
		t.Errorf("mean %v, want lines×12000/last = %v", got, want)
	}
	// The end on a window boundary: the packets at the end join the last
	// window rather than starting a window of length 0. Equal windows merge.
	tr = read(t, "1\n20\n", ReadOptions{})
	sameSteps(t, tr, []Step{{At: 0, Down: pkt / 0.010}}, 20*time.Millisecond)
	tr = read(t, "1\n20\n20\n", ReadOptions{})
	sameSteps(t, tr, []Step{{At: 0, Down: pkt / 0.010}, {At: 10 * time.Millisecond, Down: 2 * pkt / 0.010}}, 20*time.Millisecond)
	tr = read(t, "1\n2\n20\n", ReadOptions{Window: 20 * time.Millisecond})
	sameSteps(t, tr, []Step{{At: 0, Down: 3 * pkt / 0.020}}, 20*time.Millisecond)

	// Memory follows the lines, not the timestamps.
	tr = read(t, "0\n1000000000000\n", ReadOptions{})
	if len(tr.Steps) != 3 || tr.End != 1e12*time.Millisecond {
		t.Errorf("two lines 31 years apart gave %d steps, end %v", len(tr.Steps), tr.End)
	}
	for _, w := range []time.Duration{time.Microsecond, 1500 * time.Microsecond, -time.Second} {
		if _, err := Read(strings.NewReader(in), "x", ReadOptions{Window: w}); err == nil {
			t.Errorf("window %v accepted", w)
		}
	}
}

func TestReadMahimahiPair(t *testing.T) {
	const pkt = MahimahiPacketBits
	down := "0\n10\n20\n" // 20 ms: one packet per 10 ms window, plus one at the end
	up := "5\n10\n"       // 10 ms, looped twice
	tr, err := Read(strings.NewReader(down), "d", ReadOptions{Up: strings.NewReader(up), UpName: "u"})
	if err != nil {
		t.Fatal(err)
	}
	sameSteps(t, tr, []Step{{At: 0, Down: pkt / 0.010, Up: 2 * pkt / 0.010}, {At: 10 * time.Millisecond, Down: 2 * pkt / 0.010, Up: 2 * pkt / 0.010}}, 20*time.Millisecond)
	if !tr.HasUp {
		t.Error("no uplink")
	}
	_, err = Read(strings.NewReader(down), "d", ReadOptions{Up: strings.NewReader("5\nx\n"), UpName: "u"})
	if pe, ok := err.(*ParseError); !ok || pe.File != "u" || pe.Line != 2 {
		t.Errorf("bad uplink error %v does not name u:2", err)
	}
	if _, err := Read(strings.NewReader("0 1\n1 1\n"), "c", ReadOptions{Up: strings.NewReader(up)}); err == nil {
		t.Error("uplink file accepted for a cooked trace")
	}
}

func TestReadCSV(t *testing.T) {
	tr := read(t, "time_s,down_mbps,up_mbps,delay_ms,loss\n0,20,5,25,0\n10,30,5,25.5,0.01\n20,30,5,25,0.01\n", ReadOptions{})
	if !tr.HasUp || !tr.HasDelay || !tr.HasLoss || tr.Format != FormatCSV {
		t.Errorf("flags %+v", tr)
	}
	sameSteps(t, tr, []Step{
		{At: 0, Down: 20e6, Up: 5e6, Delay: 25 * time.Millisecond},
		{At: 10 * s, Down: 30e6, Up: 5e6, Delay: 25500 * time.Microsecond, Loss: 0.01},
	}, 20*s)

	// Columns by name in any order; headerless is positional; an end row
	// may carry only the time; times count from the first row.
	tr = read(t, "DOWN_MBPS, time_s\n1.5,0\n2,0.25\n", ReadOptions{})
	sameSteps(t, tr, []Step{{At: 0, Down: 1.5e6}}, 250*time.Millisecond)
	tr = read(t, "5,1\n6,2\n8\n", ReadOptions{})
	sameSteps(t, tr, []Step{{At: 0, Down: 1e6}, {At: s, Down: 2e6}}, 3*s)
	if tr.HasUp {
		t.Error("two columns gave an uplink")
	}
	tr = read(t, "\ufefftime_s,down_mbps\r\n0,1\r\n1,1\r\n", ReadOptions{})
	sameSteps(t, tr, []Step{{At: 0, Down: 1e6}}, s)
}

func TestReadCooked(t *testing.T) {
	tr := read(t, "0.0\t4.5\n0.55  4.75\n0.55 9\n\n1.5 1\n", ReadOptions{})
	sameSteps(t, tr, []Step{{At: 0, Down: 4.5e6}, {At: 550 * time.Millisecond, Down: 4.75e6}}, 1500*time.Millisecond)
	if tr.Format != FormatCooked {
		t.Errorf("format %s", tr.Format)
	}
	// Times count from the first line.
	tr = read(t, "10 1\n12 2\n", ReadOptions{})
	sameSteps(t, tr, []Step{{At: 0, Down: 1e6}}, 2*s)
}

func TestReadColumns(t *testing.T) {
	// Named columns and units; an empty cell holds the previous value.
	tr := read(t, "ms,dl,ul\n1000,500,100\n1500,,200\n2000,250,-\n", ReadOptions{
		Format: FormatColumns, TimeColumn: "MS", DownColumn: "dl", UpColumn: "ul", TimeUnit: "ms", RateUnit: "kbps"})
	sameSteps(t, tr, []Step{{At: 0, Down: 500e3, Up: 100e3}, {At: 500 * time.Millisecond, Down: 500e3, Up: 200e3},
		{At: time.Second, Down: 250e3, Up: 200e3}}, 1500*time.Millisecond)

	// No time column: one row per second.
	tr = read(t, "x,gbit\na,1\nb,2\n", ReadOptions{Format: FormatColumns, DownColumn: "gbit", RateUnit: "gbps"})
	sameSteps(t, tr, []Step{{At: 0, Down: 1e9}, {At: s, Down: 2e9}}, 2*s)

	// Lumos5G and 5Gophers headers need no naming.
	lumos := "run_num,seq_num,nrStatus,Throughput,mobility_mode,trajectory_direction\n1,1.0,NOT_RESTRICTED,78,driving,CW\n1,2.0,CONNECTED,117,driving,CW\n"
	tr = read(t, lumos, ReadOptions{})
	sameSteps(t, tr, []Step{{At: 0, Down: 78e6}, {At: s, Down: 117e6}}, 2*s)
	gophers := "protocol,num_tcp_conn,seq_num,anonymized_mCid,radio_type,throughput_mbps,nrStatus,primitive_handoff_type\nTCP,8,1,3,4G,92.1,NOT_RESTRICTED,\nTCP,8,2,3,4G,150,NOT_RESTRICTED,P1\n"
	tr = read(t, gophers, ReadOptions{})
	sameSteps(t, tr, []Step{{At: 0, Down: 92.1e6}, {At: s, Down: 150e6}}, 2*s)
	if tr.Format != FormatColumns {
		t.Errorf("5Gophers read as %s", tr.Format)
	}

	for _, o := range []ReadOptions{
		{Format: FormatColumns}, // unknown header, no columns named
		{Format: FormatColumns, DownColumn: "b", RateUnit: "furlongs"}, // bad unit
		{Format: FormatColumns, DownColumn: "b", TimeColumn: "a", TimeUnit: "h"},
	} {
		if _, err := Read(strings.NewReader("a,b\n1,2\n"), "x", o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

func TestDetect(t *testing.T) {
	for in, want := range map[string]Format{
		racaHeader:                           FormatRaca,
		"\ufeff" + racaHeader:                FormatRaca,
		"0\n0\n1\n":                          FormatMahimahi,
		"\n\n 831\n":                         FormatMahimahi,
		"0.0\t4.03768755221\n":               FormatCooked,
		"0 1":                                FormatCooked,
		"time_s,down_mbps\n":                 FormatCSV,
		"Time_S , Down_Mbps, loss\n":         FormatCSV,
		"0,20,5\n":                           FormatCSV,
		"run_num,seq_num,Throughput\n":       FormatColumns,
		"seq_num,throughput_mbps,radio_type": FormatColumns,
	} {
		got, err := Detect([]byte(in))
		if err != nil || got != want {
			t.Errorf("Detect(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", " \n\t\n", "hello", "a,b\n", "1 2 3\n", "1.5\n", "0x10\n"} {
		if got, err := Detect([]byte(in)); err == nil {
			t.Errorf("Detect(%q) = %q, want an error", in, got)
		}
	}
	if _, err := ParseFormat("pcap"); err == nil {
		t.Error("ParseFormat accepted pcap")
	}
	if f, err := ParseFormat("cooked"); err != nil || f != FormatCooked {
		t.Errorf("ParseFormat(cooked) = %q, %v", f, err)
	}
	if len(Formats()) != 7 {
		t.Errorf("Formats() = %v", Formats())
	}
}
