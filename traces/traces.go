package traces

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/dc-emu/emu/tracefmt"
)

// files holds every shipped trace and its documentation.
//
//go:embed *.csv *.cooked *.down *.up *.bw *.delay *.txt PROVENANCE.md README.md
var files embed.FS

// Default is the trace `emu run` replays without --trace: the paper's LTE
// trace (Raca et al. 4G dataset, static, "A_2018.02.12_16.14.02"), about
// 4.5 Mbit/s over its first 200 s.
const Default = "raca4g-static-A.csv"

// ErrNotFound is returned (wrapped) for a name that is neither a file nor a
// shipped trace.
var ErrNotFound = errors.New("no such trace")

// Info describes a shipped trace.
type Info struct {
	Name        string          // file name, e.g. "raca4g-static-A.csv"
	Format      tracefmt.Format // as Load reads it
	Size        int             // bytes
	Description string          // one line: network, mobility, dataset
	Aliases     []string        // other names Open accepts
}

// descriptions says in one line what each shipped trace is; every embedded
// trace must have one (a test checks both ways).
func descriptions() map[string]string {
	return map[string]string{
		"raca4g-static-A.csv":                "4G LTE, static, operator A, Cork (Raca et al. MMSys 2018); the paper's trace",
		"raca4g-static-A-20180127.csv":       "4G LTE, static, operator A, Cork (Raca et al. MMSys 2018)",
		"raca4g-car-A.csv":                   "4G LTE, driving, operator A, Cork (Raca et al. MMSys 2018)",
		"raca5g-static-B.csv":                "5G, static, operator B, Cork (Raca et al. MMSys 2020)",
		"raca5g-driving-B.csv":               "5G/LTE, driving, operator B, Cork (Raca et al. MMSys 2020)",
		"mahimahi-verizon-lte-short.down":    "LTE, Verizon, downlink (Mahimahi/Sprout, NSDI 2013); pairs with .up",
		"mahimahi-verizon-lte-short.up":      "LTE, Verizon, uplink (Mahimahi/Sprout, NSDI 2013)",
		"mahimahi-tmobile-lte-driving.down":  "LTE, T-Mobile, driving, downlink (Mahimahi, 2016)",
		"mahimahi-att-lte-driving.up":        "LTE, AT&T, driving, uplink only (Mahimahi/Sprout, NSDI 2013)",
		"mahimahi-att-lte-driving-2016.down": "LTE, AT&T, driving, downlink (Mahimahi, 2016)",
		"lumos5g-mmwave-driving-run1.csv":    "5G mmWave/LTE, driving, Minneapolis (Lumos5G, IMC 2020), excerpt",
		"5gophers-mmwave-walking.csv":        "5G mmWave/LTE, walking (5Gophers, WWW 2020)",
		"norway-hsdpa-bus-1.cooked":          "3G HSDPA, bus, Oslo (Riiser et al. MMSys 2013, Pensieve cooked)",
		"fcc-2016-trace-10730.cooked":        "fixed broadband (FCC MBA 2016, Pensieve cooked)",
		"constant-20mbit.csv":                "synthetic: 20 Mbit/s down and up for 60 s",
		"step-10-30-10mbit.csv":              "synthetic: 10, 30, 10 Mbit/s, 10 s each",
		"square-5-25mbit-2s.csv":             "synthetic: square wave 5/25 Mbit/s, 2 s period, 20 s",
		"outage-10mbit-2s.csv":               "synthetic: 10 Mbit/s, a 2 s outage at 5 s, 12 s",
		"starlink-leoreplayer-example.bw":    "Starlink downlink rate, 120 s (LeoReplayer, LeoCC SIGCOMM 2025); pairs with .delay; alias starlink",
		"starlink-leoreplayer-example.delay": "Starlink one-way delay per 10 ms, jumps every 15 s (LeoReplayer, LeoCC SIGCOMM 2025)",
	}
}

// aliases maps extra names (lower case) to shipped traces.
func aliases() map[string]string {
	return map[string]string{
		"statica.csv": Default,
		"statica":     Default,
		"starlink":    "starlink-leoreplayer-example.bw",
	}
}

// names returns the shipped trace files, sorted.
func names() []string {
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		panic(err) // an embed.FS root is always readable
	}
	var out []string
	for _, e := range entries {
		// Documentation and licences travel with the traces but are none.
		if n := e.Name(); !strings.HasSuffix(n, ".md") && !strings.HasSuffix(n, ".txt") {
			out = append(out, n)
		}
	}
	return out
}

// List returns the shipped traces, sorted by name.
func List() []Info {
	desc, al := descriptions(), aliases()
	var out []Info
	for _, n := range names() {
		b, _ := files.ReadFile(n)
		f := seriesFormat(n)
		if f == "" {
			f, _ = tracefmt.Detect(b[:min(len(b), 4096)])
		}
		info := Info{Name: n, Format: f, Size: len(b), Description: desc[n]}
		for a, target := range al {
			if target == n {
				info.Aliases = append(info.Aliases, a)
			}
		}
		slices.Sort(info.Aliases)
		out = append(out, info)
	}
	return out
}

// Names returns the shipped trace names, for messages and completion.
func Names() []string { return names() }

// Lookup finds a shipped trace by name, ignoring case: its file name, an
// alias (StaticA.csv, StaticA, starlink), or its name without extension. A
// bare name shared by a Mahimahi .down and .up pair means the .down (which
// Load pairs with the .up), and one shared by a .bw and a .delay means the
// .bw (which Load pairs with the .delay).
func Lookup(name string) (canonical string, ok bool) {
	want := strings.ToLower(name)
	all := names()
	for _, n := range all {
		if strings.ToLower(n) == want {
			return n, true
		}
	}
	if n, ok := aliases()[want]; ok {
		return n, true
	}
	var match []string
	for _, n := range all {
		if strings.ToLower(strings.TrimSuffix(n, path.Ext(n))) == want {
			match = append(match, n)
		}
	}
	switch len(match) {
	case 0:
		return "", false
	case 1:
		return match[0], true
	}
	for _, n := range match {
		if strings.HasSuffix(n, ".down") || strings.HasSuffix(n, ".bw") {
			return n, true
		}
	}
	return match[0], true
}

// Open returns a shipped trace's content and its canonical name.
func Open(name string) (io.ReadCloser, string, error) {
	b, n, err := ReadFile(name)
	if err != nil {
		return nil, "", err
	}
	return io.NopCloser(bytes.NewReader(b)), n, nil
}

// ReadFile returns a shipped trace's bytes and its canonical name.
func ReadFile(name string) ([]byte, string, error) {
	n, ok := Lookup(name)
	if !ok {
		return nil, "", notFound(name)
	}
	b, err := files.ReadFile(n)
	if err != nil {
		return nil, "", err
	}
	return b, n, nil
}

// Carries reports whether a shipped trace carries a one-way delay or a
// loss column besides its rates: a Mahimahi .bw or .down with a .delay
// beside it, a plain CSV whose header names delay_ms, down_delay_ms,
// loss or down_loss, or a .delay or .loss series. shipped is false for a name that is
// no shipped trace (a file on disk, which only reading it can tell). It
// reads at most a header line, so configurations can ask it cheaply.
func Carries(name string) (delay, loss, shipped bool) {
	n, ok := Lookup(name)
	if !ok {
		return false, false, false
	}
	switch seriesFormat(n) {
	case tracefmt.FormatDelay:
		return true, false, true
	case tracefmt.FormatLoss:
		return false, true, true
	}
	if ext := path.Ext(n); ext == ".bw" || ext == ".down" {
		_, err := files.Open(strings.TrimSuffix(n, ext) + ".delay")
		return err == nil, false, true
	}
	b, _ := files.ReadFile(n)
	if f, err := tracefmt.Detect(b[:min(len(b), 4096)]); err != nil || f != tracefmt.FormatCSV {
		return false, false, true
	}
	header, _, _ := strings.Cut(string(b), "\n")
	for _, col := range strings.Split(strings.ToLower(header), ",") {
		switch strings.TrimSpace(col) {
		case "delay_ms", "down_delay_ms", "up_delay_ms":
			delay = true
		case "loss", "down_loss", "up_loss":
			loss = true
		}
	}
	return delay, loss, true
}

// Provenance returns PROVENANCE.md: where each shipped trace comes from,
// its citation, terms and measured statistics.
func Provenance() []byte {
	b, _ := files.ReadFile("PROVENANCE.md")
	return b
}

func notFound(name string) error {
	return fmt.Errorf("%w %q: not a file, nor a shipped trace (shipped: %s; alias StaticA.csv)",
		ErrNotFound, name, strings.Join(names(), ", "))
}
