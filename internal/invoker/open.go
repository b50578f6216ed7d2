package invoker

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Paths a user names — traces, object-size CSVs, --out, any file or
// directory a flag or a configuration key names — are opened with that
// user's permissions, also when emu runs as root under sudo: otherwise
// `sudo emu` would read (and quote in its errors) any file on the machine
// for a user who may run emu but not a root shell. The functions below are
// the one way emu opens such a path. Without an invoker (not root, root
// without sudo, root running sudo) they are the os functions themselves.
//
// Under sudo, each call runs on its own goroutine locked to an OS thread
// whose filesystem identity alone is the user's (fsuid, fsgid and the
// user's groups), and switches that thread back after; the rest of the
// process stays root. A file opened so is used as root afterwards, like a
// descriptor the user passed: what counts is who could open it.

// Open opens name for reading as the user behind sudo.
func Open(name string) (*os.File, error) {
	return OpenFile(name, os.O_RDONLY, 0)
}

// OpenFile is os.OpenFile as the user behind sudo: a file it creates
// belongs to the user.
func OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	var f *os.File
	err := asInvoker(func() error {
		var err error
		f, err = os.OpenFile(name, flag, perm)
		return err
	})
	return f, err
}

// Create is os.Create as the user behind sudo: root writing a file into a
// directory of the user's (a run directory) must not follow a link the
// user left in its place to a file only root may write.
func Create(name string) (*os.File, error) {
	return OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666)
}

// Mkdir is os.Mkdir as the user behind sudo.
func Mkdir(name string, perm fs.FileMode) error {
	return asInvoker(func() error { return os.Mkdir(name, perm) })
}

// ReadFile reads the whole of name, opened as the user behind sudo.
func ReadFile(name string) ([]byte, error) {
	f, err := Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// Stat is os.Stat as the user behind sudo: a file in a directory the user
// cannot search is "permission denied", not a file that exists.
func Stat(name string) (fs.FileInfo, error) {
	var fi fs.FileInfo
	err := asInvoker(func() error {
		var err error
		fi, err = os.Stat(name)
		return err
	})
	return fi, err
}

// MkdirAll is os.MkdirAll as the user behind sudo, and then checks that the
// user may create files in dir: an existing directory the user cannot
// write to (say --out /etc) is refused with the permission error a file
// created there got, so that root writes nowhere the user could not.
func MkdirAll(dir string, perm fs.FileMode) error {
	return asInvoker(func() error {
		if err := os.MkdirAll(dir, perm); err != nil {
			return err
		}
		probe, err := os.CreateTemp(dir, ".emu-write-check-*")
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return &fs.PathError{Op: "create in", Path: dir, Err: err}
		}
		probe.Close()
		return os.Remove(probe.Name())
	})
}

// Disk opens trace files as the user behind sudo (a traces.Disk: package
// traces, pure, cannot switch identities itself and is handed one).
type Disk struct{}

// Open is Open.
func (Disk) Open(name string) (fs.File, error) { return Open(name) }

// Stat is Stat.
func (Disk) Stat(name string) (fs.FileInfo, error) { return Stat(name) }

// DirFS is os.DirFS whose files are opened as the user behind sudo: for
// reading a run or sweep directory of the user's as root, where any file
// may be a link the user left to a file only root may read.
type DirFS string

// Open opens name, a slash-separated path inside d, as Open does.
func (d DirFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	return Open(filepath.Join(string(d), filepath.FromSlash(name)))
}

// asInvoker runs f, which may only make filesystem calls on its own
// goroutine, with the filesystem identity of the user behind sudo, or
// simply runs it when there is none.
func asInvoker(f func() error) error {
	inv, ok := FromEnv()
	if !ok {
		return f()
	}
	return inv.do(f)
}
