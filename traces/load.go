package traces

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/dc-emu/emu/tracefmt"
)

// Disk is where Load finds the trace files named by path: OSDisk opens
// them as this process may; emu's runs pass internal/asuser's, so that
// root, under sudo, reads no trace the user could not.
type Disk interface {
	Open(name string) (fs.File, error)
	Stat(name string) (fs.FileInfo, error)
}

// OSDisk is the Disk of the os package.
type OSDisk struct{}

func (OSDisk) Open(name string) (fs.File, error)     { return os.Open(name) }
func (OSDisk) Stat(name string) (fs.FileInfo, error) { return os.Stat(name) }

// Load reads a trace named on a command line or in a run configuration: a
// file that exists on disk wins, otherwise a shipped trace (see Lookup).
// The error for a name that is neither lists the shipped traces and wraps
// ErrNotFound.
//
// A Mahimahi downlink file whose name ends in ".down" is paired with its
// sibling ".up" (on disk next to it, or shipped), unless o already names an
// uplink. o.UpPath may itself be a path or a shipped name. A Mahimahi file
// ending in ".bw" or ".down" with a sibling ".delay" (LeoReplayer's pair of
// rate and one-way delay) gets that delay, read in steps of o.Step: the
// trace then drives both its link's rate and delay. A name ending in
// ".delay" or ".loss" is read as that series unless o forces a format.
func Load(nameOrPath string, o tracefmt.ReadOptions) (*tracefmt.Trace, error) {
	return LoadFrom(OSDisk{}, nameOrPath, o)
}

// LoadFrom is Load with the files on disk found on d.
func LoadFrom(d Disk, nameOrPath string, o tracefmt.ReadOptions) (*tracefmt.Trace, error) {
	r, name, onDisk, err := open(d, nameOrPath)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	head := make([]byte, 4096)
	n, err := io.ReadFull(r, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	head = head[:n]
	body := io.MultiReader(bytes.NewReader(head), r)

	ext := strings.ToLower(path.Ext(name))
	if o.Format == "" {
		o.Format = seriesFormat(name)
	}
	var delaySibling string
	if (ext == ".down" || ext == ".bw") && isMahimahi(o.Format, head) {
		base := name[:len(name)-len(ext)]
		if ext == ".down" && o.Up == nil && o.UpPath == "" && exists(d, base+".up", onDisk) {
			o.UpPath = base + ".up"
		}
		if exists(d, base+".delay", onDisk) {
			delaySibling = base + ".delay"
		}
	}
	if o.Up == nil && o.UpPath != "" {
		up, upName, _, err := open(d, o.UpPath)
		if err != nil {
			return nil, fmt.Errorf("uplink trace: %w", err)
		}
		defer up.Close()
		o.Up, o.UpName, o.UpPath = up, upName, ""
	}
	t, err := tracefmt.Read(body, name, o)
	if err != nil || delaySibling == "" {
		return t, err
	}
	dr, dname, _, err := open(d, delaySibling)
	if err != nil {
		return nil, fmt.Errorf("delay trace: %w", err)
	}
	defer dr.Close()
	delay, err := tracefmt.Read(dr, dname, tracefmt.ReadOptions{Format: tracefmt.FormatDelay, Step: o.Step})
	if err != nil {
		return nil, err
	}
	return t.WithImpairments(delay), nil
}

// open finds nameOrPath on disk or among the shipped traces and returns its
// content, the name to report it by and whether it is a file on disk.
func open(d Disk, nameOrPath string) (r io.ReadCloser, name string, onDisk bool, err error) {
	fi, err := d.Stat(nameOrPath)
	switch {
	case err == nil && fi.IsDir():
		return nil, "", false, fmt.Errorf("trace %s is a directory", nameOrPath)
	case err == nil:
		f, err := d.Open(nameOrPath)
		if err != nil {
			return nil, "", false, err
		}
		return f, nameOrPath, true, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, "", false, err
	}
	r, name, err = Open(nameOrPath)
	return r, name, false, err
}

// exists reports whether a sibling file is there: on disk for a trace read
// from disk, among the shipped ones for a shipped trace.
func exists(d Disk, name string, onDisk bool) bool {
	if onDisk {
		fi, err := d.Stat(name)
		return err == nil && !fi.IsDir()
	}
	_, err := files.Open(name)
	return err == nil
}

// isMahimahi reports whether a trace with this head and forced format (""
// for none) will be read as Mahimahi.
func isMahimahi(forced tracefmt.Format, head []byte) bool {
	if forced != "" {
		return forced == tracefmt.FormatMahimahi
	}
	f, err := tracefmt.Detect(head)
	return err == nil && f == tracefmt.FormatMahimahi
}

// seriesFormat is the format a file's name gives it: a delay or loss series
// holds one number a line, which Detect cannot tell from Mahimahi's.
func seriesFormat(name string) tracefmt.Format {
	switch strings.ToLower(path.Ext(name)) {
	case ".delay":
		return tracefmt.FormatDelay
	case ".loss":
		return tracefmt.FormatLoss
	}
	return ""
}
