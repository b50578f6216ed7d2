package config

import (
	"strings"
	"testing"
)

// TestAckThresh: flow.ack_thresh defaults to RFC 9000's 2, reaches an
// ngtcp2 receiver, and is refused, naming the key, the flow and the
// implementation, where the receiver cannot honour it or the value is no
// threshold.
func TestAckThresh(t *testing.T) {
	c, err := Resolve("throughput", nil)
	if err != nil || c.Flows[0].AckThresh != DefaultAckThresh {
		t.Fatalf("default: %d, %v", c.Flows[0].AckThresh, err)
	}
	ng := []string{"flow.server_impl=ngtcp2", "flow.client_impl=ngtcp2"}
	c, err = Resolve("throughput", settings(t, append(ng, "flow.ack_thresh=20")...))
	if err != nil || c.Flows[0].AckThresh != 20 {
		t.Fatalf("ngtcp2 with 20: %d, %v", c.Flows[0].AckThresh, err)
	}
	if v := Values(&c)["flows.0.ack_thresh"]; v != "20" {
		t.Errorf("Values: flows.0.ack_thresh=%q", v)
	}
	// A quic-go server with an ngtcp2 client: the receiver decides.
	if _, err := Resolve("throughput", settings(t, "flow.client_impl=ngtcp2", "flow.ack_thresh=20")); err != nil {
		t.Errorf("ngtcp2 client, quic-go server: %v", err)
	}
	// The default is no setting to refuse, whatever the receiver.
	for _, s := range [][]string{{"flow.ack_thresh=2"}, {"flow.proto=tcp", "flow.ack_thresh=2"}} {
		if _, err := Resolve("throughput", settings(t, s...)); err != nil {
			t.Errorf("%v: %v", s, err)
		}
	}
	refused := []struct {
		set  []string
		want []string
	}{
		{[]string{"flow.ack_thresh=20"}, []string{"flows.0.ack_thresh: 20: flow dc receives with quic-go", "#2482"}},
		{[]string{"flow.server_impl=ngtcp2", "flow.ack_thresh=20"}, []string{"flow dc receives with quic-go"}},
		{[]string{"flow.proto=tcp", "flow.ack_thresh=20"}, []string{"flows.0.ack_thresh: 20: flow dc receives with kernel TCP", "every second full-sized segment", "quick-ack"}},
		{[]string{"flows.count=2", "flows.1.proto=tcp", "flows.0.server_impl=ngtcp2", "flows.0.client_impl=ngtcp2", "flow.ack_thresh=20"},
			[]string{"flows.1.ack_thresh: 20: flow dc-2 receives with kernel TCP"}},
		{append(ng, "flow.ack_thresh=0"), []string{"flows.0.ack_thresh: want 1 to 1000 ack-eliciting packets (got 0)"}},
		{append(ng, "flow.ack_thresh=-3"), []string{"flows.0.ack_thresh: want 1 to 1000 ack-eliciting packets (got -3)"}},
		{append(ng, "flow.ack_thresh=1001"), []string{"flows.0.ack_thresh: want 1 to 1000"}},
		{append(ng, "flow.ack_thresh=2.5"), []string{"ack_thresh", `"2.5" is not a whole number`}},
		{append(ng, "flow.ack_thresh=many"), []string{"ack_thresh", `"many" is not a whole number`}},
	}
	for _, r := range refused {
		_, err := Resolve("throughput", settings(t, r.set...))
		for _, w := range r.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%v: %v, want %q", r.set, err, w)
			}
		}
	}
	// A mixed run gives the ngtcp2 flow its own threshold.
	c, err = Resolve("throughput", settings(t, "flows.count=2", "flows.1.proto=tcp", "flows.0.server_impl=ngtcp2", "flows.0.client_impl=ngtcp2", "flows.0.ack_thresh=20"))
	if err != nil || c.Flows[0].AckThresh != 20 || c.Flows[1].AckThresh != DefaultAckThresh {
		t.Errorf("mixed: %+v, %v", c.Flows, err)
	}
}

// TestPlanValuesLeaveNewDefaults: a plan names a configuration without
// ack_thresh at its default, so the key changed no existing plan, and with
// it once it is set.
func TestPlanValuesLeaveNewDefaults(t *testing.T) {
	c, err := Resolve("fairness", nil)
	if err != nil {
		t.Fatal(err)
	}
	v := PlanValues(&c)
	if _, ok := v["run.seed"]; ok {
		t.Error("run.seed in the plan's values")
	}
	for k := range v {
		if strings.HasSuffix(k, ".ack_thresh") {
			t.Errorf("%s at its default in the plan's values", k)
		}
	}
	if all := Values(&c); all["flows.2.ack_thresh"] != "2" {
		t.Errorf("Values lacks flows.2.ack_thresh: %q", all["flows.2.ack_thresh"])
	}
	c.Flows[1].AckThresh = 20
	if v := PlanValues(&c); v["flows.1.ack_thresh"] != "20" {
		t.Errorf("set threshold missing: %q", v["flows.1.ack_thresh"])
	}
}
