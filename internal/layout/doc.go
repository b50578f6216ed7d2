// Package layout holds the tests that keep the module's architecture what
// docs/design.md says it is: which packages are pure (no kernel-facing
// dependency, directly or through others; no os/exec or syscall), and that
// every package says what it is for in exactly one package doc. It has no
// code of its own.
package layout
