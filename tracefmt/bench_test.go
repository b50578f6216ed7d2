package tracefmt

import (
	"bytes"
	"os"
	"testing"
)

func benchRead(b *testing.B, path string, o ReadOptions) {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read(bytes.NewReader(data), path, o); err != nil {
			b.Fatal(err)
		}
	}
}

// The largest shipped trace: 505,078 lines, 3.4 MB.
func BenchmarkReadMahimahi(b *testing.B) {
	benchRead(b, "../traces/mahimahi-tmobile-lte-driving.down", ReadOptions{})
}

func BenchmarkReadRaca(b *testing.B) {
	benchRead(b, "../traces/raca5g-driving-B.csv", ReadOptions{})
}

func BenchmarkStats(b *testing.B) {
	tr, err := ReadFile("../traces/mahimahi-tmobile-lte-driving.down", ReadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		tr.Stats()
	}
}
