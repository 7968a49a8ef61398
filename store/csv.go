package store

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"

	"github.com/lagkit/lagkit/record"
)

// tableNamed returns the table called name and a pointer to a new record
// of its type.
func tableNamed(name string) (*table, any) {
	for _, r := range []record.Record{record.Study{}, record.Technique{}, record.SeatOrder{}, record.Round{}, record.Participant{}, record.Session{}, record.Shot{},
		record.Kill{}, record.Objective{}, record.SBCReport{}, record.Answer{}, record.Path{}, record.Network{}, record.Event{}, record.Question{}, record.Client{}, record.Frames{}, record.Duel{}} {
		if t, p := tableOf(r); t.name == name {
			return t, p
		}
	}
	return nil, nil
}

// WriteCSV writes table (one of Tables) of the given studies as tidy CSV:
// a header row, then one row per record with its session's id
// (study) and its study's id (study_id) first;
// numbers as numbers, booleans as true or false, wall-clock times in ISO
// 8601 (UTC, empty when not known), match times and durations in seconds.
// Rounds are numbered from 1, as the reports number them (the database
// keeps their index from 0); seats from 0, as the schedule numbers
// them. A free-text answer's value is empty.
// It returns the number of rows written after the header.
func (db *DB) WriteCSV(ctx context.Context, w io.Writer, name string, studies []StudyRow) (int, error) {
	t, p := tableNamed(name)
	if t == nil {
		return 0, fmt.Errorf("store: no table %q (tables: %v)", name, Tables)
	}
	cw := csv.NewWriter(w)
	header := []string{"study", "study_id"}
	for _, c := range t.cols {
		header = append(header, c.csv)
	}
	if err := cw.Write(header); err != nil {
		return 0, err
	}
	row := make([]string, len(header))
	var buf []byte
	put := func(s StudyRow, fs []field) error {
		row[0], row[1] = strconv.FormatInt(s.ID, 10), strconv.FormatInt(s.Set, 10)
		for i, f := range fs {
			buf = f.cell(buf[:0])
			row[i+2] = string(buf)
		}
		return cw.Write(row)
	}
	n := 0
	for _, s := range studies {
		if t == studiesTable {
			if err := put(s, t.bind(&s.Study)); err != nil {
				return n, err
			}
			n++
			continue
		}
		// One record takes every row in turn: put copies its cells out.
		fs := t.bind(p)
		err := db.each(ctx, t, s.ID, func() (any, []field) { return p, fs }, func(any) error {
			n++
			return put(s, fs)
		})
		if err != nil {
			return n, err
		}
	}
	cw.Flush()
	return n, cw.Error()
}
