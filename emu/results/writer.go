package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"github.com/dc-emu/emu/internal/invoker"
)

// This file is the one writer of everything emu writes into run, sweep and
// reproduction directories. Two things hold for all of it:
//
//   - Atomic: a reader sees the old file or the whole new one, never half
//     of it (a temporary file beside the target, renamed over it) — all
//     but the packet captures, which CreateStream writes in place.
//   - The user's: files are created with mode 0666 and directories 0777
//     less the process's umask (which sudo passes on from the user), and
//     when emu runs as root through sudo each file and each directory it
//     creates is created as the invoking user (internal/invoker: where the
//     user may not write, or through a link the user left, it fails) and
//     handed to that user, so `emu analyze`, `emu sweep merge` and a
//     resumed sweep work on them without root.

// WriteJSON writes v as indented JSON to path atomically. Every JSON file
// emu writes goes through it.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return WriteFile(path, append(b, '\n'))
}

// WriteFile writes b to path atomically, through a temporary file in the
// same directory that is renamed over path (and removed if anything fails).
func WriteFile(path string, b []byte) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Discard()
		return err
	}
	return f.Commit()
}

// File is a file being written atomically: it is created under a
// temporary name beside its path and appears there, whole, on Commit.
// Until then the path keeps what it held. Writers that stream (a table
// rendered row by row, a figure, a qlog copy) use it where WriteFile
// would need the whole content in memory.
type File struct {
	f    *os.File
	path string
}

// Create starts writing path atomically: Write to it, then Commit to put
// it in place or Discard to leave path as it was.
func Create(path string) (*File, error) {
	dir, base := filepath.Split(path)
	for range 100 {
		tmp := filepath.Join(dir, "."+base+"."+strconv.FormatUint(rand.Uint64(), 36))
		// Created with 0666, so the umask decides the mode, as for any file
		// the user creates.
		f, err := invoker.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if err := handOverFile(f); err != nil {
			f.Close()
			os.Remove(tmp)
			return nil, err
		}
		return &File{f: f, path: path}, nil
	}
	return nil, fmt.Errorf("%s: no free temporary name beside it", path)
}

// Write writes to the temporary file.
func (f *File) Write(b []byte) (int, error) { return f.f.Write(b) }

// Commit closes the file and renames it over its path. On failure the
// temporary file is removed and path is left as it was.
func (f *File) Commit() error {
	tmp := f.f.Name()
	defer os.Remove(tmp) // fails harmlessly once renamed
	if err := f.f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, f.path)
}

// Discard closes and removes the temporary file; path is left as it was.
// It may follow a failed Commit.
func (f *File) Discard() {
	f.f.Close()
	os.Remove(f.f.Name())
}

// CreateStream creates (or truncates) path for a writer that fills it for
// a long time and whose partial content is worth keeping if it is cut
// short (a packet capture): not atomic, but with the mode and owner of
// every file the writer creates.
func CreateStream(path string) (*os.File, error) {
	f, err := invoker.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return nil, err
	}
	if err := handOverFile(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// MkdirAll creates dir and any parents missing, as os.MkdirAll does, with
// mode 0777 less the umask, as the invoking user (so each directory it
// created, not those that existed, is that user's).
func MkdirAll(dir string) error {
	fi, err := os.Stat(dir)
	if err == nil {
		if !fi.IsDir() {
			return &fs.PathError{Op: "mkdir", Path: dir, Err: fs.ErrExist}
		}
		return nil
	}
	if parent := filepath.Dir(dir); parent != dir {
		if err := MkdirAll(parent); err != nil {
			return err
		}
	}
	if err := invoker.Mkdir(dir, 0o777); err != nil {
		// Someone else made it meanwhile: theirs to own.
		if fi, serr := os.Stat(dir); serr == nil && fi.IsDir() {
			return nil
		}
		return err
	}
	return nil // made as the user: the user's already
}

// HandOver gives dir and everything under it to the invoking user when
// emu runs as root through sudo; otherwise it does nothing. It is for what
// other processes wrote into a directory of the user's (the endpoints'
// logs and qlogs in a run directory), which the writer did not create.
// The user may change the tree meanwhile: invoker.Invoker.HandOver walks
// it by descriptor, never through a link.
func HandOver(dir string) error {
	inv, ok := invoker.FromEnv()
	if !ok {
		return nil
	}
	return inv.HandOver(dir)
}

// handOverFile gives an open file, just created, to the invoking user if
// there is one.
func handOverFile(f *os.File) error {
	if inv, ok := invoker.FromEnv(); ok {
		return f.Chown(inv.UID, inv.GID)
	}
	return nil
}
