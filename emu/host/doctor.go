package host

// Check is one probe of `emu doctor`.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	// Required checks must pass for emu to run at all.
	Required bool `json:"required"`
}

// DoctorReport is what this kernel and machine can do, and which backend
// each feature will use.
type DoctorReport struct {
	Checks   []Check           `json:"checks"`
	Backends map[string]string `json:"backends"`
	CanRun   bool              `json:"can_run"`
}
