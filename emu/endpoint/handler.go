package endpoint

import (
	"net/http"
	"strconv"
)

// patternSize is the buffer /bytes/N is cut from: big enough that one
// Write fills many packets, small enough to stay in cache.
const patternSize = 64 << 10

// newHandler serves GET /bytes/N (N bytes generated from one fixed buffer,
// so N may exceed memory) and, if root is set, the files below root.
func newHandler(root string) http.Handler {
	pattern := make([]byte, patternSize)
	for i := range pattern {
		// Not all zeros, so nothing on the path can compress it away.
		pattern[i] = byte(i*131 + i>>8)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/bytes/", func(w http.ResponseWriter, r *http.Request) {
		serveBytes(w, r, pattern)
	})
	if root != "" {
		mux.Handle("/", http.FileServer(http.Dir(root)))
	}
	return mux
}

func serveBytes(w http.ResponseWriter, r *http.Request, pattern []byte) {
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
	for n > 0 {
		chunk := pattern
		if int64(len(chunk)) > n {
			chunk = chunk[:n]
		}
		if _, err := w.Write(chunk); err != nil {
			return // the client went away; nothing to tell it
		}
		n -= int64(len(chunk))
	}
}
