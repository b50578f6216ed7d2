package runstate

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// StateDir holds one file per live run. A run writes its file before it
// creates any namespace, so `emu clean` can always find what a killed run
// left: the namespaces listed in a state file whose owner process is gone.
const StateDir = "/run/emu"

// RunState is what a running emulation tells other emu commands (exec,
// addr, down, clean) about itself.
type RunState struct {
	ID      string     `json:"id"`
	PID     int        `json:"pid"`
	PIDTime uint64     `json:"pid_start"` // owner's start time in clock ticks, against PID reuse
	Command string     `json:"command"`   // up, run, sweep, calibrate
	Started time.Time  `json:"started"`
	Nodes   []NodeInfo `json:"nodes"`
	// Scratch is the run's scratch directory (ScratchDir), recorded
	// before it is made so that emu clean removes it after a crash.
	Scratch string `json:"scratch,omitempty"`
}

// NodeInfo describes a node for users: `emu up` prints it, `emu exec`
// finds namespaces through it.
type NodeInfo struct {
	Name      string   `json:"name"`
	Namespace string   `json:"namespace"`
	Role      string   `json:"role"`
	Addrs     []string `json:"addrs"`
	Path      string   `json:"path,omitempty"`
}

// NewRunID returns a fresh random run id.
func NewRunID() string {
	var b [3]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func statePath(id string) string { return filepath.Join(StateDir, id+".json") }

// WriteState records a run as owned by this process, replacing any state
// file of the same id. A new run claims its id with ClaimState instead.
func WriteState(s RunState) error {
	return writeStateIn(StateDir, s, false)
}

// ErrIDInUse is returned by ClaimState when a state file of the id exists:
// another run (live, or killed and not yet cleaned) has the id.
var ErrIDInUse = errors.New("run id in use")

// ClaimState records a new run as owned by this process, and fails with
// ErrIDInUse if a state file of its id exists. Runs started at the same
// time (a sweep with --jobs, shards on one host) thereby never share an id,
// and so never a namespace name.
func ClaimState(s RunState) error {
	return writeStateIn(StateDir, s, true)
}

// writeStateIn writes dir/<id>.json whole; to claim the id, only if no
// such file exists (of two claims of one id exactly one succeeds).
func writeStateIn(dir string, s RunState, claim bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("state: %w", err)
	}
	s.PID = os.Getpid()
	s.PIDTime = procStartTime(s.PID)
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("state: %w", err)
	}
	put := os.Rename
	if claim {
		put = os.Link // fails if the name exists; a rename would replace it
	}
	if err := writeRootFile(filepath.Join(dir, s.ID+".json"), append(b, '\n'), put); err != nil {
		if claim && errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("state: %s: %w", s.ID, ErrIDInUse)
		}
		return fmt.Errorf("state: %w", err)
	}
	return nil
}

// writeRootFile writes b to a temporary file beside path and puts it in
// place with put, so readers see the old file or the whole new one. The
// file stays root's, readable by all (emu addr needs no root): unlike what
// the results writer writes, it is not handed to the user behind sudo —
// emu clean deletes the namespaces and the directory a state file names,
// so a user who could edit one could make root delete anything.
func writeRootFile(path string, b []byte, put func(tmp, path string) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // fails harmlessly once renamed; a link leaves it
	_, err = f.Write(b)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return put(f.Name(), path)
}

// ScratchDir is where run id keeps its scratch files (the endpoints'
// TMPDIR: ngtcp2's document root and downloads, up to a download's size).
// The name follows from the id, so emu clean finds it even when the
// state file was cut short.
func ScratchDir(id string) string { return filepath.Join(os.TempDir(), "emu-run-"+id) }

// RecordScratch records dir as run id's scratch directory in its state
// file. The run calls it before it makes the directory: from then on emu
// clean removes the directory once the run is gone.
func RecordScratch(id, dir string) error {
	b, err := os.ReadFile(statePath(id))
	if err != nil {
		return fmt.Errorf("state: %w", err)
	}
	var s RunState
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("state: %s: %w", statePath(id), err)
	}
	s.Scratch = dir
	return WriteState(s)
}

// RemoveState forgets a run.
func RemoveState(id string) error {
	err := os.Remove(statePath(id))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// ListStates returns every recorded run, oldest first.
func ListStates() ([]RunState, error) {
	ents, err := os.ReadDir(StateDir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []RunState
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(StateDir, e.Name()))
		if err != nil {
			continue
		}
		var s RunState
		if json.Unmarshal(b, &s) != nil || s.ID == "" {
			// A state file cut short by a crash still names its run.
			s = RunState{ID: strings.TrimSuffix(e.Name(), ".json")}
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Started.Before(out[j].Started) })
	return out, nil
}

// Alive reports whether the run's owner process still exists (and is the
// same process, not a reused PID).
func (s RunState) Alive() bool {
	if s.PID <= 0 {
		return false
	}
	st := procStartTime(s.PID)
	return st != 0 && (s.PIDTime == 0 || st == s.PIDTime)
}

// procStartTime returns a process's start time (field 22 of
// /proc/PID/stat), or 0 if there is no such process.
func procStartTime(pid int) uint64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The command name (field 2) may contain spaces; fields resume after ')'.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return 0
	}
	v, _ := strconv.ParseUint(f[19], 10, 64)
	return v
}

// FindNode resolves a node name for `emu exec` and `emu addr`: a full
// namespace name, or a short node name (srv, cli, …) of the only live run
// (or of run id when given).
func FindNode(name, runID string) (RunState, NodeInfo, error) {
	states, err := ListStates()
	if err != nil {
		return RunState{}, NodeInfo{}, err
	}
	var live []RunState
	for _, s := range states {
		if s.Alive() && (runID == "" || s.ID == runID) {
			live = append(live, s)
		}
	}
	for _, s := range live {
		for _, n := range s.Nodes {
			if n.Namespace == name {
				return s, n, nil
			}
		}
	}
	if len(live) == 0 {
		if runID != "" {
			return RunState{}, NodeInfo{}, fmt.Errorf("no running emulation with id %q (emu up starts one)", runID)
		}
		return RunState{}, NodeInfo{}, errors.New("no running emulation (start one with emu up)")
	}
	if len(live) > 1 {
		var ids []string
		for _, s := range live {
			ids = append(ids, s.ID)
		}
		return RunState{}, NodeInfo{}, fmt.Errorf("%d emulations are running (%s): choose one with --run", len(live), strings.Join(ids, ", "))
	}
	var names []string
	for _, n := range live[0].Nodes {
		if n.Name == name {
			return live[0], n, nil
		}
		names = append(names, n.Name)
	}
	return RunState{}, NodeInfo{}, fmt.Errorf("no node %q in run %s (nodes: %s)", name, live[0].ID, strings.Join(names, ", "))
}
