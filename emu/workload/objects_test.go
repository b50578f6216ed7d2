package workload

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseObjects(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want ObjectSpec
	}{
		{"500kB,1MB,10MB,100MB", ObjectSpec{Dist: DistList, Sizes: []int64{500e3, 1e6, 10e6, 100e6}}},
		{"fixed:64KiB", ObjectSpec{Dist: DistFixed, Size: 64 << 10}},
		{"exp:1MB", ObjectSpec{Dist: DistExp, Size: 1e6}},
		{"lognormal:1MB:1.5", ObjectSpec{Dist: DistLogNormal, Size: 1e6, Sigma: 1.5}},
		{"csv:/tmp/sizes.csv", ObjectSpec{Dist: DistCSV, File: "/tmp/sizes.csv"}},
		{"web.CSV", ObjectSpec{Dist: DistCSV, File: "web.CSV"}},
	} {
		got, err := ParseObjects(tc.in)
		tc.want.text = tc.in // what String gives back
		if err != nil || !reflect.DeepEqual(got, tc.want) || got.String() != tc.in {
			t.Errorf("ParseObjects(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "1MB,,2MB", "lognormal:1MB", "lognormal:1MB:0", "lognormal:1MB:x", "exp:", "csv:", "fixed:2TB", "1MB;2MB"} {
		if _, err := ParseObjects(bad); err == nil {
			t.Errorf("ParseObjects(%q): no error", bad)
		}
	}
}

func TestParseSizesCSV(t *testing.T) {
	got, err := ParseSizesCSV("sizes.csv", []byte("\ufeffsize,comment\n# web objects\n1500\n\n64kB,small\n\"2MB\"\r\n"))
	if err != nil || !reflect.DeepEqual(got, []int64{1500, 64e3, 2e6}) {
		t.Errorf("got %v, %v", got, err)
	}
	_, err = ParseSizesCSV("sizes.csv", []byte("size\n1500\n12 parsecs\n"))
	var se *SizesError
	if !errors.As(err, &se) || se.File != "sizes.csv" || se.Line != 3 || !strings.HasPrefix(err.Error(), "sizes.csv:3: ") {
		t.Errorf("a bad line 3: err = %v", err)
	}
	if _, err := ParseSizesCSV("empty.csv", []byte("size\n# nothing\n")); err == nil || !strings.Contains(err.Error(), "empty.csv:2: no sizes") {
		t.Errorf("no sizes: err = %v", err)
	}
}

func TestParseArrivals(t *testing.T) {
	for in, want := range map[string]Arrivals{
		"seq":           {Kind: ArrivalsSeq},
		"poisson:500ms": {Kind: ArrivalsPoisson, Mean: 500 * time.Millisecond},
		"poisson:4/s":   {Kind: ArrivalsPoisson, Mean: 250 * time.Millisecond},
	} {
		want.text = in
		if got, err := ParseArrivals(in); err != nil || got != want || got.String() != in {
			t.Errorf("ParseArrivals(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "poisson", "poisson:", "poisson:-1s", "poisson:0/s", "poisson:1e9/s", "poisson:2h", "burst:1s"} {
		if _, err := ParseArrivals(bad); err == nil {
			t.Errorf("ParseArrivals(%q): no error", bad)
		}
	}
}
