//go:build ignore

// testreport reads `go test -json` on standard input and prints what a
// plain `go test` prints (each package's verdict, a failed test's output)
// and, at the end, each package's time, the ten slowest tests and every
// test that skipped with its reason: on a quiet CI machine a skip can hide
// a failure, so each one is shown. Fidelity tests skipped outside their
// tier (emutest.FidelityTier) are counted, not listed. It exits 1 if a
// test or a build failed.
//
//	go test -json ./... | go run .ci/testreport.go
//
// With -fidelity LIST it reads tier 2 as gotestsum wrote it (--jsonfile:
// the first run and each rerun of a failed test, in order) and judges
// each test by its last run. LIST is `go test -list '^TestFidelity' -json`
// of the same packages: a fidelity test that never reported (a package
// that did not build, a binary that died) fails the tier instead of
// dropping out unseen. It ends with one line: how many fidelity tests were
// verified, how many needed a rerun, how many skipped on host evidence.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
)

type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	Elapsed    float64
	ImportPath string // build-output events
}

// busyHost begins the reason of a timing test that skipped because the
// machine was not quiet (emutest.BusyHost); fidelityTier that of a
// fidelity test outside its tier (emutest.FidelityTier).
const (
	busyHost     = "busy host: "
	fidelityTier = "fidelity tier: "
)

const module = "github.com/dc-emu/emu/"

// result is one test's runs: the outcome of each, in order, and the
// reason of the last skip.
type result struct {
	pkg, test string
	outcomes  []string
	reason    string
	elapsed   float64
}

func (r *result) last() string { return r.outcomes[len(r.outcomes)-1] }

func main() {
	fidelity := flag.String("fidelity", "", "judge tier 2: `LIST` is go test -list -json of the fidelity tests")
	long := flag.Bool("long", false, "with -fidelity: judge the long tier (TestFidelityLong…) instead")
	flag.Parse()
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	results, pkgTimes, buildFailed, err := read(os.Stdin, out)
	failed := buildFailed
	if err != nil {
		fmt.Fprintf(out, "testreport: %v\n", err)
		failed++
	}
	if *fidelity != "" {
		printSlowest(out, sorted(results))
		failed += judgeTier2(out, results, *fidelity, *long)
	} else {
		failed += judgeTier1(out, results, pkgTimes)
	}
	if failed > 0 {
		out.Flush()
		os.Exit(1)
	}
}

// read passes the stream on as go test would print it and collects each
// root test's runs and each package's time.
func read(in io.Reader, out *bufio.Writer) (map[string]*result, map[string]float64, int, error) {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	logs := map[string][]string{} // package/test → output of the current run
	results := map[string]*result{}
	pkgTimes := map[string]float64{}
	buildFailed := 0
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			fmt.Fprintf(out, "%s\n", line) // not an event: pass it on
			continue
		}
		key := e.Package + " " + e.Test
		switch e.Action {
		case "build-output":
			fmt.Fprint(out, e.Output)
		case "build-fail":
			buildFailed++
		case "output":
			if e.Test == "" {
				// The package's own lines: its verdict, and a panic or a
				// timeout outside any test.
				if !strings.HasPrefix(e.Output, "=== ") && e.Output != "PASS\n" && e.Output != "FAIL\n" {
					fmt.Fprint(out, e.Output)
				}
				continue
			}
			logs[key] = append(logs[key], e.Output)
		case "pass", "fail", "skip":
			if e.Test == "" {
				pkgTimes[e.Package] += e.Elapsed
				continue
			}
			if e.Action == "fail" {
				fmt.Fprint(out, strings.Join(logs[key], ""))
			}
			if !strings.Contains(e.Test, "/") {
				r := results[key]
				if r == nil {
					r = &result{pkg: e.Package, test: e.Test}
					results[key] = r
				}
				r.outcomes = append(r.outcomes, e.Action)
				r.elapsed += e.Elapsed
				if e.Action == "skip" {
					r.reason = reason(logs[key])
				}
			}
			delete(logs, key)
		}
		out.Flush()
	}
	return results, pkgTimes, buildFailed, sc.Err()
}

func short(pkg string) string { return strings.TrimPrefix(pkg, module) }

// sorted returns the results in package, then test order.
func sorted(results map[string]*result) []*result {
	var rs []*result
	for _, r := range results {
		rs = append(rs, r)
	}
	sort.Slice(rs, func(i, j int) bool {
		if rs[i].pkg != rs[j].pkg {
			return rs[i].pkg < rs[j].pkg
		}
		return rs[i].test < rs[j].test
	})
	return rs
}

// judgeTier1 prints the times, the skips and the counts, and returns how
// many tests failed. Tier 1 has no reruns: a test that failed once failed.
func judgeTier1(out *bufio.Writer, results map[string]*result, pkgTimes map[string]float64) int {
	rs := sorted(results)
	passed, failed, fidelity := 0, 0, 0
	var skips []*result
	for _, r := range rs {
		switch {
		case contains(r.outcomes, "fail"):
			failed++
		case r.last() == "pass":
			passed++
		case strings.HasPrefix(r.reason, fidelityTier) || strings.Contains(r.reason, ": "+fidelityTier):
			fidelity++
		default:
			skips = append(skips, r)
		}
	}
	printTimes(out, rs, pkgTimes)
	fmt.Fprintf(out, "\n%d tests passed, %d failed, %d skipped; %d fidelity tests left to tier 2\n", passed, failed, len(skips), fidelity)
	busy := 0
	for _, s := range skips {
		fmt.Fprintf(out, "SKIP %s %s: %s\n", short(s.pkg), s.test, s.reason)
		if strings.Contains(s.reason, busyHost) {
			busy++
		}
	}
	// Tier 1 asserts nothing a busy machine could move: a busy-host skip
	// here is a fidelity figure that slipped out of tier 2.
	if busy > 0 {
		fmt.Fprintf(out, "%d tier-1 tests skipped on host evidence (%q): their figures belong in tier 2\n", busy, busyHost)
	}
	return failed
}

// printTimes prints each package's time and the ten slowest tests.
func printTimes(out *bufio.Writer, rs []*result, pkgTimes map[string]float64) {
	var pkgs []string
	total := 0.0
	for p, t := range pkgTimes {
		pkgs = append(pkgs, p)
		total += t
	}
	sort.Slice(pkgs, func(i, j int) bool { return pkgTimes[pkgs[i]] > pkgTimes[pkgs[j]] })
	fmt.Fprintf(out, "\npackage times (%v in all, builds not counted):\n", seconds(total))
	for _, p := range pkgs {
		if pkgTimes[p] >= 0.5 {
			fmt.Fprintf(out, "%8v  %s\n", seconds(pkgTimes[p]), short(p))
		}
	}
	printSlowest(out, rs)
}

// printSlowest prints the ten slowest tests, every run of each counted.
func printSlowest(out *bufio.Writer, rs []*result) {
	slow := append([]*result(nil), rs...)
	sort.SliceStable(slow, func(i, j int) bool { return slow[i].elapsed > slow[j].elapsed })
	if len(slow) > 10 {
		slow = slow[:10]
	}
	fmt.Fprintf(out, "the ten slowest tests:\n")
	for _, r := range slow {
		fmt.Fprintf(out, "%8v  %s %s\n", seconds(r.elapsed), short(r.pkg), r.test)
	}
}

func seconds(s float64) time.Duration {
	return time.Duration(s * float64(time.Second)).Round(100 * time.Millisecond)
}

// judgeTier2 judges each fidelity test by its last run and returns how
// many failed or never reported.
func judgeTier2(out *bufio.Writer, results map[string]*result, listFile string, long bool) int {
	inTier := func(test string) bool {
		return strings.HasPrefix(test, "TestFidelity") && strings.HasPrefix(test, "TestFidelityLong") == long
	}
	expected, err := listed(listFile, inTier)
	if err != nil {
		fmt.Fprintf(out, "testreport: %v\n", err)
		return 1
	}
	rs := sorted(results)
	verified, reran, host, failed := 0, 0, 0, 0
	var reruns, skips, fails []string
	for _, r := range rs {
		if !inTier(r.test) {
			continue
		}
		delete(expected, r.pkg+" "+r.test)
		name := short(r.pkg) + " " + r.test
		switch r.last() {
		case "pass":
			verified++
			if len(r.outcomes) > 1 {
				reran++
				reruns = append(reruns, fmt.Sprintf("%s: passed on run %d of %d", name, len(r.outcomes), len(r.outcomes)))
			}
		case "fail":
			failed++
			fails = append(fails, fmt.Sprintf("%s: failed %d runs", name, len(r.outcomes)))
		case "skip":
			if strings.Contains(r.reason, busyHost) {
				host++
			}
			skips = append(skips, fmt.Sprintf("%s: %s", name, r.reason))
		}
	}
	var missing []string
	for k := range expected {
		missing = append(missing, short(k))
	}
	sort.Strings(missing)
	section := func(title string, lines []string) {
		if len(lines) == 0 {
			return
		}
		fmt.Fprintf(out, "\n%s:\n", title)
		for _, l := range lines {
			fmt.Fprintf(out, "  %s\n", l)
		}
	}
	section("fidelity tests that needed a rerun", reruns)
	section("fidelity tests skipped", skips)
	section("fidelity tests failed after their reruns", fails)
	section("fidelity tests listed but never reported (did their package build?)", missing)
	tier := "fidelity"
	if long {
		tier = "long fidelity"
	}
	fmt.Fprintf(out, "\n%s: %d verified, %d of them after a rerun; %d skipped on host evidence, %d skipped otherwise; %d failed; %d never reported\n",
		tier, verified, reran, host, len(skips)-host, failed, len(missing))
	return failed + len(missing)
}

// listed reads `go test -list -json` and returns the tests it names that
// are in the tier, keyed as package and test.
func listed(path string, inTier func(string) bool) (map[string]bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names := map[string]bool{}
	dec := json.NewDecoder(f)
	for dec.More() {
		var e event
		if err := dec.Decode(&e); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if e.Action == "output" && e.Test == "" && inTier(strings.TrimSpace(e.Output)) {
			names[e.Package+" "+strings.TrimSpace(e.Output)] = true
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s lists no fidelity tests", path)
	}
	return names, nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// reason is the last line a skipped test logged, its call to Skip, without
// the framework's lines.
func reason(lines []string) string {
	for i := len(lines) - 1; i >= 0; i-- {
		t := strings.TrimSpace(lines[i])
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- SKIP") {
			continue
		}
		return t
	}
	return "(no reason given)"
}
