// Package traces ships emu's bandwidth traces inside the binary: real 4G,
// 5G, mmWave and Mahimahi traces (see PROVENANCE.md for their source,
// citation and terms) and small synthetic ones (constant, step, square
// wave, outage) that tests and examples use. It also resolves the names
// users give on the command line: a file on disk wins, then a shipped
// trace, by name, alias (StaticA.csv is the paper's LTE trace) or name
// without extension. Parsing belongs to package tracefmt.
package traces
