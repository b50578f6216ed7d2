package emu

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/internal/invoker"
)

// tcpInfoRows reads the server's TCP_INFO log of flow f; nil without
// error when the flow has none (not MPTCP, or it never connected).
func (r *runner) tcpInfoRows(f config.Flow) ([]results.TCPInfoRow, error) {
	if f.Path != config.PathMPTCP {
		return nil, nil
	}
	path := r.file(results.TCPInfoFile(f.Name))
	fh, err := invoker.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return results.ReadTCPInfo(fh, filepath.FromSlash(results.TCPInfoFile(f.Name)))
}
