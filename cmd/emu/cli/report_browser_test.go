package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dc-emu/emu/internal/emutest"
)

// chromium returns a headless-capable Chromium or skips the test.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium (Debian package chromium; CI installs it): report.html is checked in a real browser")
	return ""
}

// TestRunReportInChromium opens the report emu analyze writes in headless
// Chromium, from the file system and with networking off, and checks that
// the page loads without an error and that every figure decodes.
func TestRunReportInChromium(t *testing.T) {
	bin := chromium(t)
	emutest.Exclusive(t) // a browser loads both cores for a few seconds
	run := copyFixture(t, "run-latency")
	if code, _, errs := runAnalyze(t, run); code != 0 {
		t.Fatalf("analyze: exit %d: %s", code, errs)
	}
	svgs, err := filepath.Glob(filepath.Join(run, "plots", "*.svg"))
	if err != nil || len(svgs) < 5 {
		t.Fatalf("%d figures written (%v), want at least 5", len(svgs), err)
	}
	page, err := filepath.Abs(filepath.Join(run, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
		"--user-data-dir="+t.TempDir(), "--enable-logging=stderr", "--v=0", "--virtual-time-budget=60000",
		"--dump-dom", "file://"+page)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			t.Fatalf("chromium did not finish within 2m: %v\n%s", err, lastLines(stderr.String(), 20))
		}
		t.Fatalf("chromium: %v\n%s", err, lastLines(stderr.String(), 20))
	}
	body := regexp.MustCompile(`<body[^>]*>`).FindString(stdout.String())
	if body == "" {
		t.Fatalf("no <body> in the DOM chromium dumped:\n%s", lastLines(stdout.String(), 20))
	}
	want := `data-figures="` + strconv.Itoa(len(svgs)) + "/" + strconv.Itoa(len(svgs)) + `"`
	// The page counts its figures on the load event, which waits for
	// every image: a count short of all is a figure that did not decode.
	// No count at all is a page that had not loaded when the browser's
	// virtual-time budget ran out: a busy machine can make that happen
	// within 10 s, the budget is 60 s (it costs no time: Chromium skips
	// virtual time it has nothing to do in).
	switch {
	case !strings.Contains(body, "data-figures="):
		t.Errorf("body %s, want %s: the page had not loaded when chromium dumped it", body, want)
	case !strings.Contains(body, want):
		t.Errorf("body %s, want %s: a figure did not decode", body, want)
	}
	if strings.Contains(body, "data-error") {
		t.Errorf("the page reported an error: %s", body)
	}
	// Chromium logs the page's console messages, failed loads included, as
	// CONSOLE lines; the page itself logs nothing.
	for _, l := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(l, ":CONSOLE") || strings.Contains(l, "net::ERR_") {
			t.Errorf("browser console: %s", l)
		}
	}
	t.Logf("%s: %s", filepath.Base(page), body)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
