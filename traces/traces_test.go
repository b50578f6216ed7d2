package traces

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dc-emu/emu/tracefmt"
)

func TestEveryShippedTraceIsDescribedAndReadable(t *testing.T) {
	desc := descriptions()
	list := List()
	if len(list) != len(desc) {
		t.Errorf("%d shipped traces, %d descriptions", len(list), len(desc))
	}
	for _, info := range list {
		if info.Description == "" {
			t.Errorf("%s has no description", info.Name)
		}
		if info.Format == "" || info.Size == 0 {
			t.Errorf("%s: format %q, %d bytes", info.Name, info.Format, info.Size)
		}
		tr, err := Load(info.Name, tracefmt.ReadOptions{})
		if err != nil {
			t.Errorf("%s: %v", info.Name, err)
			continue
		}
		if tr.Format != info.Format || tr.Source != info.Name {
			t.Errorf("%s read as %s from %q", info.Name, tr.Format, tr.Source)
		}
	}
	for name := range desc {
		if _, _, err := ReadFile(name); err != nil {
			t.Errorf("described trace %s is not shipped: %v", name, err)
		}
	}
	want := map[string]tracefmt.Format{
		"raca4g-static-A.csv": tracefmt.FormatRaca, "mahimahi-att-lte-driving.up": tracefmt.FormatMahimahi,
		"norway-hsdpa-bus-1.cooked": tracefmt.FormatCooked, "lumos5g-mmwave-driving-run1.csv": tracefmt.FormatColumns,
		"5gophers-mmwave-walking.csv": tracefmt.FormatColumns, "constant-20mbit.csv": tracefmt.FormatCSV,
		"starlink-leoreplayer-example.bw": tracefmt.FormatMahimahi, "starlink-leoreplayer-example.delay": tracefmt.FormatDelay,
	}
	for _, info := range list {
		if f, ok := want[info.Name]; ok && f != info.Format {
			t.Errorf("%s detected as %s, want %s", info.Name, info.Format, f)
		}
	}
}

func TestLookup(t *testing.T) {
	for name, want := range map[string]string{
		"StaticA.csv":                        Default,
		"StaticA":                            Default,
		"statica.CSV":                        Default,
		"raca4g-static-A.csv":                Default,
		"RACA4G-STATIC-A":                    Default,
		"mahimahi-verizon-lte-short":         "mahimahi-verizon-lte-short.down",
		"mahimahi-verizon-lte-short.up":      "mahimahi-verizon-lte-short.up",
		"mahimahi-att-lte-driving":           "mahimahi-att-lte-driving.up",
		"constant-20mbit":                    "constant-20mbit.csv",
		"fcc-2016-trace-10730":               "fcc-2016-trace-10730.cooked",
		"mahimahi-tmobile-lte-driving.DOWN":  "mahimahi-tmobile-lte-driving.down",
		"starlink":                           "starlink-leoreplayer-example.bw",
		"Starlink-LeoReplayer-Example":       "starlink-leoreplayer-example.bw",
		"starlink-leoreplayer-example.delay": "starlink-leoreplayer-example.delay",
	} {
		got, ok := Lookup(name)
		if !ok || got != want {
			t.Errorf("Lookup(%q) = %q, %v; want %q", name, got, ok, want)
		}
	}
	for _, name := range []string{"", "nope.csv", "StaticB", "raca4g", "PROVENANCE.md", "README", "starlink-leoreplayer-LICENSE.txt"} {
		if got, ok := Lookup(name); ok {
			t.Errorf("Lookup(%q) = %q, want none", name, got)
		}
	}
	if List()[0].Name != "5gophers-mmwave-walking.csv" || !slices.Contains(infoFor(t, Default).Aliases, "statica.csv") {
		t.Errorf("List is not sorted or misses StaticA's alias: %+v", List()[:2])
	}
}

func infoFor(t *testing.T, name string) Info {
	for _, info := range List() {
		if info.Name == name {
			return info
		}
	}
	t.Fatalf("%s not listed", name)
	return Info{}
}

func TestLoadPrefersDiskAndListsShippedNames(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	// A file on disk named like a shipped trace wins over it.
	if err := os.WriteFile("StaticA.csv", []byte("time_s,down_mbps\n0,7\n3,7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := Load("StaticA.csv", tracefmt.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if tr.End != 3*time.Second || tr.Steps[0].Down != 7e6 || tr.Source != "StaticA.csv" || tr.Format != tracefmt.FormatCSV {
		t.Errorf("disk file not preferred: %+v", tr)
	}
	_, err = Load("no-such-trace.csv", tracefmt.ReadOptions{})
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), Default) || !strings.Contains(err.Error(), "no-such-trace.csv") {
		t.Errorf("error for a missing trace = %v; want ErrNotFound naming it and listing %s", err, Default)
	}
	if _, err := Load(dir, tracefmt.ReadOptions{}); err == nil {
		t.Error("loading a directory succeeded")
	}
}

func TestLoadPairsMahimahiSiblings(t *testing.T) {
	dir := t.TempDir()
	down, up := filepath.Join(dir, "x.down"), filepath.Join(dir, "x.up")
	os.WriteFile(down, []byte("0\n5\n10\n20\n"), 0o644) // 4 packets in 20 ms
	tr, err := Load(down, tracefmt.ReadOptions{})
	if err != nil || tr.HasUp {
		t.Fatalf("lone .down: %v, HasUp %v", err, tr != nil && tr.HasUp)
	}
	os.WriteFile(up, []byte("1\n20\n"), 0o644)
	tr, err = Load(down, tracefmt.ReadOptions{})
	if err != nil || !tr.HasUp {
		t.Fatalf("with sibling .up: %v, HasUp %v", err, tr != nil && tr.HasUp)
	}
	s := tr.Stats()
	if got, want := s.Down.Mean, 4*12000/0.020/1e6; abs(got-want) > 1e-9 {
		t.Errorf("down mean %v, want %v", got, want)
	}
	if got, want := s.Up.Mean, 2*12000/0.020/1e6; abs(got-want) > 1e-9 {
		t.Errorf("up mean %v, want %v", got, want)
	}
	// An explicit uplink may be a shipped name; the shorter trace loops.
	tr, err = Load(down, tracefmt.ReadOptions{UpPath: "mahimahi-verizon-lte-short.up"})
	if err != nil || !tr.HasUp || tr.End != 140*time.Second {
		t.Fatalf("explicit shipped uplink: %v", err)
	}
	if got, want := tr.Stats().Down.Mean, 4*12000/0.020/1e6; abs(got-want) > 1e-6 {
		t.Errorf("looped down mean %v, want %v", got, want)
	}

	// A shipped .down pairs with the shipped .up, not with files on disk.
	t.Chdir(dir)
	os.WriteFile("mahimahi-tmobile-lte-driving.up", []byte("0\n1\n"), 0o644)
	tr, err = Load("mahimahi-tmobile-lte-driving.down", tracefmt.ReadOptions{})
	if err != nil || tr.HasUp {
		t.Errorf("shipped .down without shipped .up: %v, HasUp %v", err, tr != nil && tr.HasUp)
	}
}

func TestLoadPairsDelaySiblings(t *testing.T) {
	dir := t.TempDir()
	bw, delay := filepath.Join(dir, "x.bw"), filepath.Join(dir, "x.delay")
	os.WriteFile(bw, []byte("0\n5\n10\n20\n"), 0o644)
	tr, err := Load(bw, tracefmt.ReadOptions{})
	if err != nil || tr.HasDelay {
		t.Fatalf("lone .bw: %v, HasDelay %v", err, tr != nil && tr.HasDelay)
	}
	os.WriteFile(delay, []byte("30\n40\n"), 0o644)
	tr, err = Load(bw, tracefmt.ReadOptions{Step: 5 * time.Millisecond})
	if err != nil || !tr.HasDelay || tr.End != 20*time.Millisecond {
		t.Fatalf("with sibling .delay: %v, %+v", err, tr)
	}
	// Delay steps of 5 ms: 30 ms, then 40 ms from 5 ms on, held past the
	// series' end at 10 ms.
	for at, want := range map[time.Duration]time.Duration{0: 30 * time.Millisecond, 7 * time.Millisecond: 40 * time.Millisecond, 15 * time.Millisecond: 40 * time.Millisecond} {
		if s, _, _ := tr.StepAt(at, false); s.Delay != want {
			t.Errorf("delay at %v = %v, want %v", at, s.Delay, want)
		}
	}
	// A bad delay file names itself and its line.
	os.WriteFile(delay, []byte("30\n-1\n"), 0o644)
	if _, err := Load(bw, tracefmt.ReadOptions{}); err == nil || !strings.Contains(err.Error(), "x.delay:2") {
		t.Errorf("bad sibling .delay: %v", err)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
