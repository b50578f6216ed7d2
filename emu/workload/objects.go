package workload

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/dc-emu/emu/emu/units"
)

// Object size distributions (ObjectSpec.Dist).
const (
	DistList      = "list"      // the sizes in order
	DistFixed     = "fixed"     // every object Size bytes
	DistExp       = "exp"       // exponential with mean Size
	DistLogNormal = "lognormal" // log-normal with median Size and shape Sigma
	DistCSV       = "csv"       // drawn uniformly from the sizes in File
)

// MaxObjectSize bounds every object size (and the sizes a distribution
// draws): 1 TB, below what one emulated flow can carry in a run.
const MaxObjectSize = 1e12

// ObjectSpec is the sizes of an objects flow (flows.N.objects), parsed.
//
//	500kB,1MB,10MB      a list, fetched in that order
//	fixed:1MB           every object 1 MB
//	exp:1MB             exponential sizes with mean 1 MB
//	lognormal:1MB:1.5   log-normal sizes with median 1 MB and σ of ln(size) 1.5
//	csv:sizes.csv       sizes drawn at random from a file (also FILE.csv alone)
//
// A CSV file has one size per line in its first column (units as in
// flow.size, a bare number is bytes), an optional header line "size" or
// "bytes", and may have blank lines and # comments; ParseSizesCSV reads it.
//
// The zero ObjectSpec (Dist "") is no objects: a flow of another kind.
type ObjectSpec struct {
	Dist  string
	Sizes []int64 // DistList
	Size  int64   // DistFixed: the size; DistExp: the mean; DistLogNormal: the median
	Sigma float64 // DistLogNormal
	File  string  // DistCSV
	// text is the spec as it was written, which String gives back, so
	// that a run records the value the user set.
	text string
}

// String is the spec as ParseObjects read it.
func (o ObjectSpec) String() string { return o.text }

// ErrNoObjects is ParseObjects' error for an empty spec, which an objects
// flow cannot have.
var ErrNoObjects = errors.New("no objects (want a list such as 500kB,1MB, fixed:1MB, exp:1MB, lognormal:1MB:1.5 or csv:FILE)")

// ParseObjects parses an objects flow's sizes (flows.N.objects). It does not read a CSV file: the
// caller reads File and gives it to ParseSizesCSV.
func ParseObjects(s string) (ObjectSpec, error) {
	spec, err := parseObjects(strings.TrimSpace(s))
	spec.text = s
	return spec, err
}

func parseObjects(s string) (ObjectSpec, error) {
	if s == "" {
		return ObjectSpec{}, ErrNoObjects
	}
	kind, rest, hasKind := strings.Cut(s, ":")
	switch {
	case hasKind && kind == DistCSV, !hasKind && strings.HasSuffix(strings.ToLower(s), ".csv"):
		file := rest
		if !hasKind {
			file = s
		}
		if file == "" {
			return ObjectSpec{}, errors.New("csv: no file named")
		}
		return ObjectSpec{Dist: DistCSV, File: file}, nil
	case hasKind && (kind == DistFixed || kind == DistExp):
		n, err := parseObjectSize(rest)
		if err != nil {
			return ObjectSpec{}, fmt.Errorf("%s: %w", kind, err)
		}
		return ObjectSpec{Dist: kind, Size: n}, nil
	case hasKind && kind == DistLogNormal:
		med, sig, ok := strings.Cut(rest, ":")
		if !ok {
			return ObjectSpec{}, fmt.Errorf("%q: want lognormal:MEDIAN:SIGMA, e.g. lognormal:1MB:1.5", s)
		}
		n, err := parseObjectSize(med)
		if err != nil {
			return ObjectSpec{}, fmt.Errorf("lognormal median: %w", err)
		}
		sigma, err := strconv.ParseFloat(strings.TrimSpace(sig), 64)
		if err != nil || !(sigma > 0 && sigma <= 5) {
			return ObjectSpec{}, fmt.Errorf("lognormal sigma %q: want a number in (0, 5]", sig)
		}
		return ObjectSpec{Dist: DistLogNormal, Size: n, Sigma: sigma}, nil
	case hasKind:
		return ObjectSpec{}, fmt.Errorf("%q: unknown distribution %q (want fixed, exp, lognormal or csv)", s, kind)
	}
	var list []int64
	for _, part := range strings.Split(s, ",") {
		n, err := parseObjectSize(part)
		if err != nil {
			return ObjectSpec{}, fmt.Errorf("object %d of the list: %w", len(list)+1, err)
		}
		list = append(list, n)
	}
	return ObjectSpec{Dist: DistList, Sizes: list}, nil
}

func parseObjectSize(s string) (int64, error) {
	n, err := units.ParseSize(strings.TrimSpace(s))
	if err != nil {
		return 0, err
	}
	if n < 1 || n > MaxObjectSize {
		return 0, fmt.Errorf("%q: an object has 1 B to %s", s, units.FormatSize(MaxObjectSize))
	}
	return n, nil
}

// Random reports whether the sizes are drawn (and so need a seed and a
// count or a duration).
func (o ObjectSpec) Random() bool { return o.Dist != DistList && o.Dist != DistFixed }

// SizesError is a bad line of a sizes CSV file.
type SizesError struct {
	File string
	Line int
	Err  error
}

func (e *SizesError) Error() string { return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err) }
func (e *SizesError) Unwrap() error { return e.Err }

// ParseSizesCSV reads the sizes of a CSV file named name (for errors)
// with contents data; the first bad line is a *SizesError.
func ParseSizesCSV(name string, data []byte) ([]int64, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<16)
	var out []int64
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(string(bytes.TrimPrefix(sc.Bytes(), []byte("\ufeff"))))
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		first, _, _ := strings.Cut(text, ",")
		first = strings.Trim(strings.TrimSpace(first), `"`)
		if len(out) == 0 && (strings.EqualFold(first, "size") || strings.EqualFold(first, "bytes")) {
			continue
		}
		n, err := parseObjectSize(first)
		if err != nil {
			return nil, &SizesError{File: name, Line: line, Err: err}
		}
		out = append(out, n)
	}
	if err := sc.Err(); err != nil {
		return nil, &SizesError{File: name, Line: line + 1, Err: err}
	}
	if len(out) == 0 {
		return nil, &SizesError{File: name, Line: line, Err: errors.New("no sizes in the file")}
	}
	return out, nil
}

// Arrival processes.
const (
	ArrivalsSeq     = "seq"     // each object starts when the previous one completed
	ArrivalsPoisson = "poisson" // objects start at exponential gaps, whether or not earlier ones are done
)

// Arrivals is when an objects flow's objects start (flows.N.arrivals):
// seq, or poisson with a mean gap.
type Arrivals struct {
	Kind string
	Mean time.Duration // ArrivalsPoisson: mean time between starts
	text string        // as written, for String
}

// Sequential is the arrivals seq: each object after the previous one.
func Sequential() Arrivals { return Arrivals{Kind: ArrivalsSeq, text: ArrivalsSeq} }

// String is the arrivals as ParseArrivals read them.
func (a Arrivals) String() string { return a.text }

// ParseArrivals parses "seq", "poisson:500ms" (mean gap) or "poisson:2/s"
// (starts per second).
func ParseArrivals(s string) (Arrivals, error) {
	a, err := parseArrivals(strings.TrimSpace(s))
	a.text = s
	return a, err
}

func parseArrivals(s string) (Arrivals, error) {
	if s == ArrivalsSeq {
		return Arrivals{Kind: ArrivalsSeq}, nil
	}
	rest, ok := strings.CutPrefix(s, ArrivalsPoisson+":")
	if !ok {
		return Arrivals{}, fmt.Errorf("%q: want seq or poisson:MEAN (poisson:500ms, poisson:2/s)", s)
	}
	var mean time.Duration
	if perSec, ok := strings.CutSuffix(rest, "/s"); ok {
		r, err := strconv.ParseFloat(perSec, 64)
		if err != nil || !(r > 0) || math.IsInf(r, 0) {
			return Arrivals{}, fmt.Errorf("%q: %q is not a positive rate per second", s, perSec)
		}
		mean = time.Duration(float64(time.Second) / r)
	} else {
		d, err := units.ParseDuration(rest)
		if err != nil {
			return Arrivals{}, fmt.Errorf("%q: %w", s, err)
		}
		mean = d
	}
	if mean < time.Millisecond || mean > time.Hour {
		return Arrivals{}, fmt.Errorf("%q: mean gap %v out of range (1ms..1h)", s, mean)
	}
	return Arrivals{Kind: ArrivalsPoisson, Mean: mean}, nil
}
