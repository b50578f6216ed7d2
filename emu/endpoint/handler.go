package endpoint

import (
	"net/http"
	"strconv"
	"time"
)

// patternSize is the buffer /bytes/N is cut from: big enough that one
// Write fills many packets, small enough to stay in cache.
const patternSize = 64 << 10

// newHandler serves GET /bytes/N (N bytes generated from one fixed buffer,
// so N may exceed memory, with a send stamp every stampInterval bytes
// unless it is NoStamps) and, if root is set, the files below root.
//
// It also takes uploads (POST /upload, upload.go) and rr transactions
// (/rr/N, rr.go).
func newHandler(cfg *ServerConfig) http.Handler {
	pattern := bodyPattern()
	uploads := newUploadSink(cfg)
	mux := http.NewServeMux()
	mux.HandleFunc("/bytes/", func(w http.ResponseWriter, r *http.Request) {
		serveBytes(w, r, pattern, cfg.StampInterval)
	})
	mux.HandleFunc(uploadPath, func(w http.ResponseWriter, r *http.Request) {
		serveUpload(w, r, uploads, make([]byte, readBufSize))
	})
	mux.HandleFunc(rrPath, func(w http.ResponseWriter, r *http.Request) {
		serveRR(w, r, pattern)
	})
	if cfg.ResumeBDP {
		mux.HandleFunc(pathStatePath, servePathState) // bdp_linux.go
	}
	if cfg.Root != "" {
		mux.Handle("/", http.FileServer(http.Dir(cfg.Root)))
	}
	return mux
}

// bodyPattern is the buffer bodies are cut from.
func bodyPattern() []byte {
	pattern := make([]byte, patternSize)
	for i := range pattern {
		// Not all zeros, so nothing on the path can compress it away.
		pattern[i] = byte(i*131 + i>>8)
	}
	return pattern
}

// serveBytes writes the body in pieces that never cross a stamp offset, so
// each stamp starts a Write and its time is taken just before the transport
// gets it: quic-go's Write returns once all but the last packet's worth of
// a piece is packed into packets, net/http's HTTP/2 Write once the piece is
// written to the TLS connection (see the package documentation for what
// that means for the delay measured).
func serveBytes(w http.ResponseWriter, r *http.Request, pattern []byte, stampInterval int64) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "only GET and HEAD", http.StatusMethodNotAllowed)
		return
	}
	n, ok := bytesPathSize(r.URL.Path)
	if !ok {
		http.Error(w, "want /bytes/N with N a decimal number of bytes up to "+strconv.FormatInt(UnboundedSize, 10), http.StatusNotFound)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/octet-stream")
	h.Set("Content-Length", strconv.FormatInt(n, 10))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	if bc := bdpConnFrom(r.Context()); bc != nil {
		bc.start(n)
		defer func() { w.Header().Set(http.TrailerPrefix+trailerResumeCheck, bc.result(r.Context())) }()
	}
	var stamped []byte // pattern with room for a stamp; pattern is shared
	if stampInterval > 0 {
		stamped = make([]byte, min(int64(len(pattern)), stampInterval))
		copy(stamped, pattern)
	}
	for off := int64(0); off < n; {
		size := min(int64(len(pattern)), n-off)
		chunk := pattern
		if stamped != nil {
			into := off % stampInterval
			size = min(size, stampInterval-into)
			if into == 0 && size >= StampSize {
				chunk = stamped
				waitSendable(r.Context()) // sendwait.go
				putStamp(chunk, stampInterval, time.Now())
			}
		}
		if _, err := w.Write(chunk[:size]); err != nil {
			return // the client went away; nothing to tell it
		}
		off += size
	}
}
