package experiment

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// The files an experiment run keeps in its folder beside its report:
// what was asked for (a Manifest), and each cell's result as it finished,
// so that a run stopped part way is continued rather than started again.
const (
	ManifestFile = "run.json"
	CellsFile    = "cells.jsonl"
)

// Manifest is what a run was asked for; a resumed run must ask for the
// same. The seed is a string, as in results.json.
type Manifest struct {
	Experiment string `json:"experiment"`
	Seed       string `json:"seed"`
	Quick      bool   `json:"quick"`
	Shard      string `json:"shard,omitempty"`
}

// ResumeCommand is the command line that continues the run in dir.
func (m Manifest) ResumeCommand(dir string) string {
	s := "lagkit experiment run " + m.Experiment + " --seed " + m.Seed
	if m.Quick {
		s += " --quick"
	}
	if m.Shard != "" {
		s += " --shard " + m.Shard
	}
	return s + " --resume " + dir
}

// String says what the run is, for messages.
func (m Manifest) String() string {
	s := fmt.Sprintf("%s with seed %s", m.Experiment, m.Seed)
	if m.Quick {
		s += ", quick"
	}
	if m.Shard != "" {
		s += ", shard " + m.Shard
	}
	return s
}

// ErrNoRun is wrapped by Resume's error for a folder that holds no run.
var ErrNoRun = errors.New("holds no experiment run to continue")

// MismatchError is Resume's error for a folder that holds another run.
type MismatchError struct{ Have, Want Manifest }

func (e *MismatchError) Error() string {
	return fmt.Sprintf("the folder holds %s; this run asks for %s", e.Have, e.Want)
}

// Resume checks that dir holds a run of want and returns its finished
// cells: an error wrapping ErrNoRun when dir has no manifest, a
// *MismatchError when it holds another run.
func Resume(dir string, want Manifest) ([]CellResult, error) {
	b, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no %s there, so it %w", ManifestFile, ErrNoRun)
	} else if err != nil {
		return nil, err
	}
	var got Manifest
	if err := json.Unmarshal(b, &got); err != nil {
		return nil, fmt.Errorf("%s: %w", ManifestFile, err)
	}
	if got != want {
		return nil, &MismatchError{Have: got, Want: want}
	}
	return ReadCells(dir)
}

// ErrNotEmpty is returned by Fresh for a folder that holds files.
var ErrNotEmpty = errors.New("is not empty")

// Fresh makes sure dir can take a new run: it is created if missing,
// and must be empty unless force is set (else ErrNotEmpty), so a run
// never mixes its files with another's.
func Fresh(dir string, force bool) error {
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if len(entries) > 0 && !force {
		return ErrNotEmpty
	}
	return os.MkdirAll(dir, 0o755)
}

// WriteJSON writes v, indented, to path.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// ReadCells reads dir's cells.jsonl. A last line cut short (the process
// killed while writing it) is dropped: that cell is played again.
func ReadCells(dir string) ([]CellResult, error) {
	path := filepath.Join(dir, CellsFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if i := bytes.LastIndexByte(b, '\n'); i < len(b)-1 {
		b = b[:i+1]
	}
	var cells []CellResult
	for n, line := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var c CellResult
		if err := json.Unmarshal(line, &c); err != nil {
			return nil, fmt.Errorf("%s: line %d: %w", path, n+1, err)
		}
		cells = append(cells, c)
	}
	return cells, nil
}

// WriteCells replaces dir's cells.jsonl with cells in design order,
// through a temporary file so a crash leaves the old or the new file.
func WriteCells(dir string, cells []CellResult) error {
	cells = slices.Clone(cells)
	slices.SortFunc(cells, func(a, b CellResult) int { return a.Cell.Index - b.Cell.Index })
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for i := range cells {
		if err := enc.Encode(&cells[i]); err != nil {
			return err
		}
	}
	tmp := filepath.Join(dir, "."+CellsFile+".tmp")
	if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, CellsFile))
}

// CellLog appends each finished cell to cells.jsonl at once, one write
// per cell, so an interrupted run keeps every cell that finished.
type CellLog struct {
	mu sync.Mutex
	f  *os.File
}

// OpenCells starts dir's cells.jsonl with the cells already done.
func OpenCells(dir string, done []CellResult) (*CellLog, error) {
	if err := WriteCells(dir, done); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, CellsFile), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil, err
	}
	return &CellLog{f: f}, nil
}

// Add appends c, at once.
func (l *CellLog) Add(c CellResult) error {
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("%s: %w", CellsFile, err)
	}
	return nil
}

// Close closes the file; closing twice is harmless.
func (l *CellLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
