// Package units parses and prints the values of emu's settings with their
// units, the way tc and netem take them: rates, sizes, durations and
// fractions. It is the one grammar of values that the configuration
// (emu/config), the workload vocabulary (emu/workload) and the endpoints
// share; it knows no keys, and its errors say what they expected so that
// a caller can name the key.
package units
