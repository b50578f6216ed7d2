//go:build ignore

// testreport reads `go test -json` on standard input and prints what a
// plain `go test` prints (each package's verdict, a failed test's output)
// and, at the end, every test that skipped with its reason: on a quiet CI
// machine a skip can hide a failure, so each one is shown, and how many
// timing tests skipped because the machine was busy. It exits 1 if a test
// or a build failed.
//
//	go test -json ./... | go run .ci/testreport.go
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
)

type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	ImportPath string // build-output events
}

type skip struct{ pkg, test, reason string }

// busyHost begins the reason of a timing test that skipped because the
// machine was not quiet (emutest.BusyHost).
const busyHost = "busy host: "

func main() {
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 16<<20)
	logs := map[string][]string{} // package/test → output so far
	var skips []skip
	failed, passed := 0, 0
	for in.Scan() {
		line := in.Bytes()
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
			failed++
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
		case "pass":
			if e.Test != "" {
				passed++
			}
			delete(logs, key)
		case "fail":
			if e.Test != "" {
				failed++
				fmt.Fprint(out, strings.Join(logs[key], ""))
			}
			delete(logs, key)
		case "skip":
			if e.Test != "" {
				skips = append(skips, skip{e.Package, e.Test, reason(logs[key])})
			}
			delete(logs, key)
		}
		out.Flush()
	}
	sort.Slice(skips, func(i, j int) bool {
		if skips[i].pkg != skips[j].pkg {
			return skips[i].pkg < skips[j].pkg
		}
		return skips[i].test < skips[j].test
	})
	fmt.Fprintf(out, "\n%d tests passed, %d failed, %d skipped\n", passed, failed, len(skips))
	busy := 0
	for _, s := range skips {
		fmt.Fprintf(out, "SKIP %s %s: %s\n", strings.TrimPrefix(s.pkg, "github.com/dc-emu/emu/"), s.test, s.reason)
		if strings.Contains(s.reason, busyHost) {
			busy++
		}
	}
	// A timing test that skipped on a busy machine verified nothing: the
	// count says how much of the run's timing was left unchecked.
	fmt.Fprintf(out, "%d timing tests skipped because the machine was busy (%q)\n", busy, busyHost)
	if err := in.Err(); err != nil {
		fmt.Fprintf(out, "testreport: %v\n", err)
		failed++
	}
	if failed > 0 {
		out.Flush()
		os.Exit(1)
	}
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
