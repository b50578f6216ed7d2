//go:build !linux

package topo

import (
	"errors"
	"syscall"
)

// errUnsupported: namespaces and veths exist only on Linux.
var errUnsupported = errors.New("network namespaces need Linux")

// Net is a built topology (Linux only).
type Net struct{ Spec Spec }

// NetnsDir is where named namespaces live on Linux.
const NetnsDir = "/run/netns"

// ExecIn runs a command inside a node's namespace (Linux only).
func ExecIn(string, []string, []string, *syscall.Credential) error { return errUnsupported }

// ListNamespaces lists named namespaces (none off Linux).
func ListNamespaces() ([]string, error) { return nil, nil }
