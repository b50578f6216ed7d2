package results

import (
	"encoding/json"
	"fmt"
	"os"
)

// CreateJSON writes v as indented JSON to path atomically, as WriteJSON
// does, but only if path does not exist yet; otherwise it fails with an
// error matching fs.ErrExist. Of writers racing for one path exactly one
// succeeds (a run claiming its id with its state file).
func CreateJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	// A hard link fails if the name exists; a rename would replace it.
	return writeVia(path, append(b, '\n'), os.Link)
}
