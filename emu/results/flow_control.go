package results

// FlowControl is one direction's DC flow control (dc.fc=ddds,
// docs/flow-control.md): each leg's reports and credit, and the PDCP
// host's buffer where SDUs wait for credit before they get an SN.
type FlowControl struct {
	// Legs are link1's and link2's, in that order.
	Legs []LegFlowControl `json:"legs"`
	// HostHeld counts the SDUs that waited in the PDCP host's buffer for a
	// leg with credit; HostDropped those dropped there, before an SN was
	// assigned (dc.fc.full=drop, or the buffer full), so the receiver
	// never waits for them.
	HostHeld    uint64 `json:"host_held"`
	HostDropped uint64 `json:"host_dropped"`
	// HostWaitMs is how long the SDUs that waited there waited: n, p50,
	// p95 and max in ms.
	HostWaitMs map[string]float64 `json:"host_wait_ms"`
	// HostBufferBytesMax is the most bytes the host's buffer held at once.
	HostBufferBytesMax int `json:"host_buffer_bytes_max"`
}

// LegFlowControl is one leg's side of flow control over a run.
type LegFlowControl struct {
	Link string `json:"link"` // link1, link2
	// Reports counts the DDDS reports the host applied; ReportsOnZero
	// those the leg sent at once because its DBS reached or left 0;
	// StaleReports those the host ignored as older than one it had applied.
	Reports       uint64 `json:"reports"`
	ReportsOnZero uint64 `json:"reports_on_zero"`
	StaleReports  uint64 `json:"stale_reports"`
	// CreditLimitedS is how long the host had a PDU the leg had no credit
	// for, in s.
	CreditLimitedS float64 `json:"credit_limited_s"`
	// DesiredBufferLast is the DBS of the last report applied, bytes.
	DesiredBufferLast int `json:"desired_buffer_last"`
}
