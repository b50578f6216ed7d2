package emu

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

// binWidth is the time series resolution of docs/results.md.
const binWidth = 100 * time.Millisecond

// dirSample is one reading of a link direction's rate limiter.
type dirSample struct {
	Bytes, Packets uint64 // cumulative, Ethernet frames
	BacklogBytes   uint64
	Drops          uint64
}

// linkSample is one reading of every link direction, at T since the epoch.
type linkSample struct {
	T    time.Duration
	Dirs []dirSample
	// PDCP is the number of packets the device-side proxy holds, per
	// direction in use.
	PDCP []int
}

// ipBytes is the IP-layer part of a rate limiter's count: it counts each
// frame's 14-byte Ethernet header too.
func (d dirSample) ipBytes() uint64 {
	h := d.Packets * etherHeader
	if h > d.Bytes {
		return 0
	}
	return d.Bytes - h
}

// at returns the last sample taken at or before t (the first one if none).
func sampleAt(samples []linkSample, t time.Duration) linkSample {
	i := sort.Search(len(samples), func(i int) bool { return samples[i].T > t })
	if i == 0 {
		return samples[0]
	}
	return samples[i-1]
}

// flowLog is a flow's recv log: cumulative bytes at times since the epoch.
type flowLog struct {
	t     []time.Duration
	bytes []int64
}

// readFlowLog reads a "t_s,bytes" CSV written by an endpoint client.
func readFlowLog(path string) (flowLog, error) {
	f, err := os.Open(path)
	if err != nil {
		return flowLog{}, err
	}
	defer f.Close()
	return parseFlowLog(f, path)
}

func parseFlowLog(r io.Reader, name string) (flowLog, error) {
	var fl flowLog
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		txt := strings.TrimSpace(sc.Text())
		if txt == "" || strings.HasPrefix(txt, "t_s") {
			continue
		}
		ts, bs, ok := strings.Cut(txt, ",")
		t, err1 := strconv.ParseFloat(ts, 64)
		b, err2 := strconv.ParseInt(bs, 10, 64)
		if !ok || err1 != nil || err2 != nil {
			return fl, fmt.Errorf("%s:%d: want t_s,bytes, got %q", name, line, txt)
		}
		fl.t = append(fl.t, time.Duration(t*float64(time.Second)))
		fl.bytes = append(fl.bytes, b)
	}
	return fl, sc.Err()
}

// bytesAt returns the cumulative bytes received by t.
func (fl flowLog) bytesAt(t time.Duration) int64 {
	i := sort.Search(len(fl.t), func(i int) bool { return fl.t[i] > t })
	if i == 0 {
		return 0
	}
	return fl.bytes[i-1]
}

// seriesTable builds timeseries.csv: flows' goodput from their recv logs,
// links' capacity, throughput and queue from the samples.
type seriesTable struct {
	header []string
	rows   [][]float64
}

func (s *seriesTable) write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, strings.Join(s.header, ","))
	for _, row := range s.rows {
		for i, v := range row {
			if i > 0 {
				bw.WriteByte(',')
			}
			bw.WriteString(strconv.FormatFloat(v, 'f', -1, 64))
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

func round3(v float64) float64 {
	return float64(int64(v*1000+0.5)) / 1000
}
