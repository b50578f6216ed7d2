package invoker

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// HandOver gives dir and everything under it to inv: for what other
// processes, as root, wrote into a directory of the user's. The user may
// change that tree while it is walked, so the walk goes by descriptor, not
// by path: each directory is opened relative to the one above it, never
// through a link (O_NOFOLLOW), and each entry is handed over relative to
// its directory without following a link (fchownat AT_SYMLINK_NOFOLLOW).
// A directory swapped for a link mid-walk is an error, not a way out of
// the tree. dir itself must already be inv's (made as the user, as --out
// is): otherwise a link in its path could make it any of root's
// directories. A file with more than one link is left alone and reported:
// emu's files have one, and another may be a root file linked in.
func (inv Invoker) HandOver(dir string) error {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return &fs.PathError{Op: "stat", Path: dir, Err: err}
	}
	if int(st.Uid) != inv.UID {
		return fmt.Errorf("hand over %s: owned by uid %d, not by uid %d, the user behind sudo", dir, st.Uid, inv.UID)
	}
	return inv.handOverAt(fd, dir)
}

// handOverAt hands over the directory open as fd (its path for errors)
// and what is in it.
func (inv Invoker) handOverAt(fd int, path string) error {
	if err := unix.Fchown(fd, inv.UID, inv.GID); err != nil {
		return &fs.PathError{Op: "chown", Path: path, Err: err}
	}
	dup, err := unix.Dup(fd)
	if err != nil {
		return &fs.PathError{Op: "dup", Path: path, Err: err}
	}
	d := os.NewFile(uintptr(dup), path)
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return err
	}
	var errs []error
	for _, name := range names {
		p := filepath.Join(path, name)
		var st unix.Stat_t
		if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			errs = append(errs, &fs.PathError{Op: "stat", Path: p, Err: err})
			continue
		}
		switch {
		case st.Mode&unix.S_IFMT == unix.S_IFDIR:
			sub, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			if err != nil {
				errs = append(errs, &fs.PathError{Op: "open", Path: p, Err: err})
				continue
			}
			errs = append(errs, inv.handOverAt(sub, p))
			unix.Close(sub)
		case st.Mode&unix.S_IFMT != unix.S_IFLNK && st.Nlink > 1:
			errs = append(errs, fmt.Errorf("hand over %s: %d links to it; left alone", p, st.Nlink))
		default:
			if err := unix.Fchownat(fd, name, inv.UID, inv.GID, unix.AT_SYMLINK_NOFOLLOW); err != nil {
				errs = append(errs, &fs.PathError{Op: "chown", Path: p, Err: err})
			}
		}
	}
	return errors.Join(errs...)
}
