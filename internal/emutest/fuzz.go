package emutest

import "testing"

// AddSeeds adds seeds to the corpus of a fuzz target whose one argument
// is a T: the seed itself for a string, its bytes for a []byte. Targets
// with more arguments call f.Add.
func AddSeeds[T string | []byte](f *testing.F, seeds ...string) {
	f.Helper()
	for _, s := range seeds {
		f.Add(T(s))
	}
}
