package sweep

import (
	"strconv"
	"strings"

	"github.com/dc-emu/emu/emu/results"
)

// The vocabulary studies write their presets in: axis values and flow
// settings that more than one study uses, spelled once.

// FlowSettings turns "k=v,k=v" into flow i's settings, flows.i.k=v.
func FlowSettings(i int, kv string) []string {
	var out []string
	for _, s := range strings.Split(kv, ",") {
		out = append(out, "flows."+strconv.Itoa(i)+"."+s)
	}
	return out
}

// DCScheduler is the axis value "dc-NAME" that runs DC with scheduler name.
func DCScheduler(name string) Value { return Value{"dc-" + name, []string{"dc.scheduler=" + name}} }

// TCPWith is the axis value "tcp-CC": kernel TCP with congestion control cc.
func TCPWith(cc string) Value { return Value{"tcp-" + cc, []string{"flow.proto=tcp", "flow.cc=" + cc}} }

// Ngtcp2With is the axis value "ngtcp2-CC": ngtcp2's client and server with
// congestion control cc.
func Ngtcp2With(cc string) Value {
	return Value{"ngtcp2-" + cc, []string{"flow.server_impl=ngtcp2", "flow.client_impl=ngtcp2", "flow.cc=" + cc}}
}

// MustVary parses an axis in --vary syntax that a study writes in its
// table; a malformed literal is a bug the study's tests catch.
func MustVary(s string) results.Axis {
	a, err := ParseVary(s)
	if err != nil {
		panic("sweep: preset axis: " + err.Error())
	}
	return a
}
