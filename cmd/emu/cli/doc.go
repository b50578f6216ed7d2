// Package cli implements emu's command line: one file per subcommand, each
// mapping flags onto a library configuration (packages emu, tracefmt, pdcp,
// analysis) and printing a human table or, with --json, machine-readable
// output on stdout. Errors go to stderr and become a non-zero exit status.
package cli
