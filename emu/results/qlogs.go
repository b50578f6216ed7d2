package results

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/dc-emu/emu/internal/invoker"
)

// A run's qlog files are JSON-SEQ text of some 1.2 kB per packet a QUIC
// flow sends (both sides): 240 MB for a 60 s fairness run at 40 Mbit/s,
// terabytes for the paper's method. gzip at its fastest level shrinks them
// about 17-fold at some 190 MB/s of one core, and every reader of a run
// directory (analysis, the run report, qvis export) opens the compressed
// files as they were, so sweeps keep them that way (QlogPolicy).

// gzSuffix marks a compressed qlog file: dc-server.sqlog.gz.
const gzSuffix = ".gz"

// QlogGlobs are the patterns, relative to a run directory, that match its
// qlog files: emu's own (.sqlog), ones copied in from elsewhere (.qlog),
// and either compressed.
func QlogGlobs() []string {
	return []string{
		QlogDir + "/*.sqlog", QlogDir + "/*.qlog",
		QlogDir + "/*.sqlog" + gzSuffix, QlogDir + "/*.qlog" + gzSuffix,
	}
}

// QlogStem is a qlog file's name without its directory and extensions:
// "qlog/dc-server.sqlog.gz" → "dc-server".
func QlogStem(name string) string {
	base := strings.TrimSuffix(path.Base(filepath.ToSlash(name)), gzSuffix)
	return strings.TrimSuffix(strings.TrimSuffix(base, ".sqlog"), ".qlog")
}

// OpenQlog opens qlog file name in fsys, decompressing it when its name
// says it is compressed.
func OpenQlog(fsys fs.FS, name string) (io.ReadCloser, error) {
	f, err := fsys.Open(name)
	if err != nil || !strings.HasSuffix(name, gzSuffix) {
		return f, err
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return gzipFile{zr, f}, nil
}

// gzipFile closes both the decompressor and the file under it.
type gzipFile struct {
	*gzip.Reader
	f fs.File
}

func (g gzipFile) Close() error { return errors.Join(g.Reader.Close(), g.f.Close()) }

// QlogPolicy is what becomes of a run's qlog files once the run has ended
// (emu sweep and emu reproduce --qlogs).
type QlogPolicy string

const (
	// QlogsGzip compresses them to name.gz: the default of sweeps (and
	// what the zero QlogPolicy does).
	QlogsGzip QlogPolicy = "gzip"
	// QlogsKeep leaves them as the endpoints wrote them.
	QlogsKeep QlogPolicy = "keep"
	// QlogsDrop removes them: the run's summary, counters and time
	// series keep its figures, but the qlog views (cwnd, RTT, loss over
	// time) and re-analysis are gone.
	QlogsDrop QlogPolicy = "drop"
)

// ParseQlogPolicy reads a --qlogs value.
func ParseQlogPolicy(s string) (QlogPolicy, error) {
	switch p := QlogPolicy(s); p {
	case QlogsGzip, QlogsKeep, QlogsDrop:
		return p, nil
	}
	return "", fmt.Errorf("qlogs %q: want gzip, keep or drop", s)
}

// Check says whether p is a policy (the zero one included).
func (p QlogPolicy) Check() error {
	if p == "" {
		return nil
	}
	_, err := ParseQlogPolicy(string(p))
	return err
}

// Apply does p to the qlog files of the run in runDir and returns their
// bytes on disk before and after.
func (p QlogPolicy) Apply(runDir string) (before, after int64, err error) {
	if err := p.Check(); err != nil {
		return 0, 0, err
	}
	if p == "" {
		p = QlogsGzip
	}
	files, err := QlogFiles(invoker.DirFS(runDir))
	if err != nil {
		return 0, 0, err
	}
	for _, rel := range files {
		name := filepath.Join(runDir, filepath.FromSlash(rel))
		st, err := invoker.Stat(name) // the user's directory: as the user
		if err != nil {
			return before, after, err
		}
		before += st.Size()
		switch {
		case p == QlogsKeep:
			after += st.Size()
		case p == QlogsDrop:
			if err := os.Remove(name); err != nil {
				return before, after, err
			}
		case p == QlogsGzip && strings.HasSuffix(name, gzSuffix):
			after += st.Size()
		case p == QlogsGzip:
			n, err := compress(name)
			if err != nil {
				return before, after, err
			}
			after += n
		}
	}
	return before, after, nil
}

// QlogFiles lists the qlog files of the run directory fsys is rooted at
// (QlogGlobs), sorted, as paths relative to it.
func QlogFiles(fsys fs.FS) ([]string, error) {
	var out []string
	for _, g := range QlogGlobs() {
		m, err := fs.Glob(fsys, g)
		if err != nil {
			return nil, err
		}
		out = append(out, m...)
	}
	sort.Strings(out)
	return out, nil
}

// compress writes name.gz beside name and removes name; a failure leaves
// name as it was and no partial .gz behind. It returns the compressed
// size.
func compress(name string) (int64, error) {
	in, err := invoker.Open(name)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	out, err := Create(name + gzSuffix)
	if err != nil {
		return 0, fmt.Errorf("compress %s: %w", name, err)
	}
	count := &countingWriter{w: out}
	zw, _ := gzip.NewWriterLevel(count, gzip.BestSpeed) // a valid level: no error
	_, err = io.Copy(zw, in)
	if err = errors.Join(err, zw.Close()); err == nil {
		err = out.Commit()
	}
	if err != nil {
		out.Discard()
		return 0, fmt.Errorf("compress %s: %w", name, err)
	}
	return count.n, os.Remove(name)
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}
