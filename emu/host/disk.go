//go:build linux || darwin

package host

import (
	"errors"
	"fmt"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// FreeSpace is how many bytes an unprivileged writer may still put on the
// file system holding path (or its nearest existing parent, for a
// directory not yet made).
func FreeSpace(path string) (uint64, error) {
	var st unix.Statfs_t
	for p := path; ; {
		err := unix.Statfs(p, &st)
		if err == nil {
			return st.Bavail * uint64(st.Bsize), nil
		}
		parent := filepath.Dir(p)
		if !errors.Is(err, unix.ENOENT) || parent == p {
			return 0, fmt.Errorf("free space of %s: %w", path, err)
		}
		p = parent
	}
}
