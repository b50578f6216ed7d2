package endpoint

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/netip"
	"os"
	"testing"
)

func TestWriteSelfSigned(t *testing.T) {
	dir := t.TempDir()
	extra := netip.MustParseAddr("10.200.1.2")
	certFile, keyFile, err := WriteSelfSigned(dir, extra)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(keyFile); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("key file %s: %v, mode %v; want 0600", keyFile, err, st.Mode().Perm())
	}
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	pool, err := loadCAPool(certFile)
	if err != nil {
		t.Fatal(err)
	}
	// Verify against the same pool a client builds from the file, for
	// every name a run may dial.
	for _, name := range []string{"localhost", "127.0.0.1", "::1", "10.200.1.2"} {
		opts := x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
		if ip := net.ParseIP(name); ip != nil {
			opts.DNSName = ip.String()
		} else {
			opts.DNSName = name
		}
		if _, err := leaf.Verify(opts); err != nil {
			t.Errorf("verify for %s: %v", name, err)
		}
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: "10.200.1.3"}); err == nil {
		t.Error("certificate verifies for an address it does not name")
	}
	if leaf.SignatureAlgorithm != x509.ECDSAWithSHA256 {
		t.Errorf("signature %v, want ECDSA P-256 with SHA-256", leaf.SignatureAlgorithm)
	}
}
