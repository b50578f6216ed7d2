package emu

import (
	"strings"

	"github.com/dc-emu/emu/topo"
)

// listRunNamespaces returns the namespaces of run id that exist now.
func listRunNamespaces(id string) ([]string, error) {
	names, err := topo.ListNamespaces()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, "emu-"+id+"-") {
			out = append(out, n)
		}
	}
	return out, nil
}
