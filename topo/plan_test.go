package topo

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

func renderPlan(s Spec) string {
	var b strings.Builder
	for _, op := range Plan(s) {
		b.WriteString(op.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// TestPlanGolden pins the exact kernel operations of the standard
// topologies: a change to addressing, routing or sysctls shows up here as a
// readable diff of iproute2-like lines.
func TestPlanGolden(t *testing.T) {
	for name, spec := range map[string]Spec{
		"throughput": Throughput("abc"),
		"fairness":   Fairness("abc"),
		"dc-uplink2": DC("abc", DCOptions{Paths: []string{PathDC}, Uplink: PathLink2}),
		"mptcp":      DC("abc", DCOptions{Paths: []string{PathMPTCP, PathLink1, PathLink2}, Uplink: PathLink1}),
	} {
		t.Run(name, func(t *testing.T) {
			if err := spec.Validate(); err != nil {
				t.Fatal(err)
			}
			got := renderPlan(spec)
			path := filepath.Join("testdata", name+".plan")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./topo -run Golden -update)", err)
			}
			if got != string(want) {
				t.Errorf("plan changed; diff against %s:\n%s", path, got)
			}
		})
	}
}

func TestValidateReportsEveryProblem(t *testing.T) {
	s := Throughput("BAD ID")
	s.Nodes = append(s.Nodes, Node{Name: "srv", Role: "router"})
	s.Links = append(s.Links, Link{Name: "x", A: End{Node: "srv", Iface: "gws"}, B: End{Node: "nowhere", Iface: "x"}})
	err := s.Validate()
	if err == nil {
		t.Fatal("invalid spec accepted")
	}
	for _, want := range []string{`run id "BAD ID"`, `node "srv" declared twice`, `unknown role "router"`, `unknown node "nowhere"`, `interface srv/gws used twice`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

// TestTCPBufferMax: with DCOptions.TCPBufferMax every node raises both of
// TCP's autotuning maxima, after the sysctls every node gets; without it
// no node writes them.
func TestTCPBufferMax(t *testing.T) {
	count := func(ops []Op) map[string]int {
		n := map[string]int{}
		for _, o := range ops {
			if o.Kind == OpSysctl && (o.Key == "net.ipv4.tcp_wmem" || o.Key == "net.ipv4.tcp_rmem") {
				n[o.Node]++
				if !strings.HasSuffix(o.Value, " 67108864") {
					t.Errorf("%s: %s=%q", o.Node, o.Key, o.Value)
				}
			}
		}
		return n
	}
	s := DC("t1", DCOptions{Paths: []string{PathDC, PathLink1}, Uplink: PathLink1, TCPBufferMax: 64 << 20})
	got := count(Plan(s))
	for _, nd := range s.Nodes {
		if got[nd.Name] != 2 {
			t.Errorf("%s writes %d TCP buffer sysctls, want 2", nd.Name, got[nd.Name])
		}
	}
	if got := count(Plan(DC("t1", DCOptions{Paths: []string{PathDC}, Uplink: PathLink1}))); len(got) != 0 {
		t.Errorf("without TCPBufferMax: %v", got)
	}
}
