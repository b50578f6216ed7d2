//go:build !race

package emutest

const raceEnabled = false
