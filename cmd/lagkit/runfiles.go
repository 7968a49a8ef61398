package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lagkit/lagkit/experiment"
)

// The files an experiment run keeps beside its report: what was asked
// for, and each cell's result as it finished.
const (
	manifestFile = "run.json"
	cellsFile    = "cells.jsonl"
)

// runManifest is what a run was asked for; a resumed run must ask for the
// same. The seed is a string, as in results.json.
type runManifest struct {
	Experiment string `json:"experiment"`
	Seed       string `json:"seed"`
	Quick      bool   `json:"quick"`
	Shard      string `json:"shard,omitempty"`
}

// resumeCommand is the command line that continues the run in dir.
func (m runManifest) resumeCommand(dir string) string {
	s := "lagkit experiment run " + m.Experiment + " --seed " + m.Seed
	if m.Quick {
		s += " --quick"
	}
	if m.Shard != "" {
		s += " --shard " + m.Shard
	}
	return s + " --resume " + dir
}

// resumable checks that dir holds a run of want and returns its finished
// cells.
func resumable(dir string, want runManifest) ([]experiment.CellResult, error) {
	b, err := os.ReadFile(filepath.Join(dir, manifestFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, usagef("--resume %s: no %s there, so it holds no experiment run to continue", dir, manifestFile)
	} else if err != nil {
		return nil, fmt.Errorf("--resume: %w", err)
	}
	var got runManifest
	if err := json.Unmarshal(b, &got); err != nil {
		return nil, fmt.Errorf("--resume %s: %s: %w", dir, manifestFile, err)
	}
	if got != want {
		return nil, usagef("--resume %s: the folder holds %s; this command asks for %s",
			dir, got.describe(), want.describe())
	}
	return readCells(dir)
}

func (m runManifest) describe() string {
	s := fmt.Sprintf("%s with seed %s", m.Experiment, m.Seed)
	if m.Quick {
		s += ", quick"
	}
	if m.Shard != "" {
		s += ", shard " + m.Shard
	}
	return s
}

// fresh makes sure dir can take a new run: it is created if missing, and
// must be empty unless force is set, so a run never mixes its files with
// another's.
func fresh(dir string, force bool) error {
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("--out: %w", err)
	}
	if len(entries) > 0 && !force {
		return usagef("--out %s is not empty: give --force to write over it, or --resume %s to continue a run there", dir, dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	return nil
}

// readCells reads dir's cells.jsonl. A last line cut short (the process
// killed while writing it) is dropped: that cell is played again.
func readCells(dir string) ([]experiment.CellResult, error) {
	path := filepath.Join(dir, cellsFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if i := bytes.LastIndexByte(b, '\n'); i < len(b)-1 {
		b = b[:i+1]
	}
	var cells []experiment.CellResult
	for n, line := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var c experiment.CellResult
		if err := json.Unmarshal(line, &c); err != nil {
			return nil, fmt.Errorf("%s: line %d: %w", path, n+1, err)
		}
		cells = append(cells, c)
	}
	return cells, nil
}

// writeCells replaces dir's cells.jsonl with cells in design order,
// through a temporary file so a crash leaves the old or the new file.
func writeCells(dir string, cells []experiment.CellResult) error {
	cells = slices.Clone(cells)
	slices.SortFunc(cells, func(a, b experiment.CellResult) int { return a.Cell.Index - b.Cell.Index })
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for i := range cells {
		if err := enc.Encode(&cells[i]); err != nil {
			return err
		}
	}
	tmp := filepath.Join(dir, "."+cellsFile+".tmp")
	if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, cellsFile))
}

// cellLog appends each finished cell to cells.jsonl at once, one write
// per cell, so an interrupted run keeps every cell that finished.
type cellLog struct {
	mu sync.Mutex
	f  *os.File
}

// openCells starts dir's cells.jsonl with the cells already done.
func openCells(dir string, done []experiment.CellResult) (*cellLog, error) {
	if err := writeCells(dir, done); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, cellsFile), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil, err
	}
	return &cellLog{f: f}, nil
}

func (l *cellLog) add(c experiment.CellResult) error {
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("%s: %w", cellsFile, err)
	}
	return nil
}

// Close closes the file; closing twice is harmless.
func (l *cellLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// writeJSON writes v, indented, to path.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// commandLine is the command as given, for the results' provenance: the
// command path, the arguments and the flags that were set (in name
// order).
func commandLine(cmd *cobra.Command, args []string) []string {
	line := append(strings.Fields(cmd.CommandPath()), args...)
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if f.Value.Type() == "bool" {
			line = append(line, "--"+f.Name)
			if f.Value.String() != "true" {
				line[len(line)-1] += "=" + f.Value.String()
			}
			return
		}
		line = append(line, "--"+f.Name, f.Value.String())
	})
	return line
}
