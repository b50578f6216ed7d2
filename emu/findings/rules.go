package findings

// Tolerances of the rules. The paper gives JFIs to two decimals (four near
// 1); throughput words such as "close" or "hardly affected" have no number,
// and emu reads them as within 10 %.
const (
	// JFITol is the tolerance of a JFI the paper gives to two decimals.
	JFITol = 0.05
	// JFITolNearOne is the tolerance of a JFI near 1 the paper gives to
	// two or four decimals (1.00, 0.9996, 0.9903): JFI's scale is
	// compressed there.
	JFITolNearOne = 0.01
	// CloseTol is emu's reading of "close", "little difference", "hardly
	// affected": within 10 % of the larger value.
	CloseTol = 0.10
)

// LineAxis is the axis whose values are a figure's lines, never its x
// axis: the stacks of the paper's presets.
const LineAxis = "stack"

// PointAt names a point: a preset and axis=value pairs.
func PointAt(preset string, kv ...string) At {
	return At{Preset: preset, Labels: pairs(kv)}
}

// LineAlong names a line: a preset, its axis, and the other axes' values.
func LineAlong(preset, axis string, kv ...string) Line {
	return Line{Preset: preset, Axis: axis, Fixed: pairs(kv)}
}

func pairs(kv []string) map[string]string {
	if len(kv)%2 != 0 {
		panic("findings: odd label list") // a typo in a table; its tests catch it
	}
	m := map[string]string{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

// TermAt is metric at point a.
func TermAt(metric string, a At) Term { return Term{At: a, Metric: metric} }

// SeriesAlong is metric along line l.
func SeriesAlong(metric string, l Line) Series { return Series{Line: l, Metric: metric} }
