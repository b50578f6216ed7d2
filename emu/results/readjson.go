package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
)

// ReadJSON decodes the JSON file name of fsys into v. Syntax and type errors name
// the file, the line and column, and the field.
func ReadJSON(fsys fs.FS, name string, v any) error {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return err
	}
	return DecodeJSON(data, name, v)
}

// DecodeJSON decodes data, the contents of the file name, into v. Syntax
// and type errors name the file, the line and column, and the field.
func DecodeJSON(data []byte, name string, v any) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return fmt.Errorf("%s: empty file", name)
	}
	err := json.Unmarshal(data, v)
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &se):
		line, col := lineCol(data, se.Offset-1) // Offset counts the bytes read, the bad one included
		return fmt.Errorf("%s:%d:%d: %w", name, line, col, err)
	case errors.As(err, &te):
		line, col := lineCol(data, te.Offset-1)
		return fmt.Errorf("%s:%d:%d: field %s: %s where %s was expected: %w", name, line, col, te.Field, te.Value, te.Type, err)
	default:
		return fmt.Errorf("%s: %w", name, err)
	}
}

func lineCol(data []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(data)))
	prefix := data[:off]
	line = bytes.Count(prefix, []byte{'\n'}) + 1
	col = int(off) - (bytes.LastIndexByte(prefix, '\n') + 1) + 1
	return line, col
}
