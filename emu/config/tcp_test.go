package config

import (
	"strings"
	"testing"
)

func TestTCPBufferMax(t *testing.T) {
	c, err := Resolve("throughput", settings(t, "tcp.buffer_max=64MB"))
	if err != nil || c.TCPBufferMax != 64e6 {
		t.Fatalf("64MB: %d, %v", c.TCPBufferMax, err)
	}
	for _, v := range []string{"512kB", "2GB"} {
		_, err := Resolve("throughput", settings(t, "tcp.buffer_max="+v))
		if err == nil || !strings.Contains(err.Error(), "tcp.buffer_max: want 0 (the kernel's) or 1MB to 1GB") {
			t.Errorf("%s: %v", v, err)
		}
	}
}
