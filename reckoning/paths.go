package reckoning

import (
	"bufio"
	"cmp"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/lagkit/lagkit/geom"
)

// PathHeader is the header row a path file must start with, or
// PathVelHeader for a file that also records each sample's velocity.
const (
	PathHeader    = "time,player,team,x,y,z"
	PathVelHeader = PathHeader + ",vx,vy,vz"
)

// Limits of a path file's values.
const (
	MaxPathVel    = 1e3                // m/s, each component
	MaxPathTime   = 7 * 24 * time.Hour // the latest sample time
	MaxPathPlayer = 1 << 16            // players and teams are below this
	MaxPathCoord  = 1e4                // metres from the origin
)

// A player's path is split where it has no sample for longer than MaxGap
// (it was dead or left), or where it moves faster than MaxSpeed (a
// respawn or teleport: lagkit's sprint is 6.5 m/s, and a fall from a 3 m
// wall ends below 8 m/s).
const (
	MaxGap   = 500 * time.Millisecond
	MaxSpeed = 15.0 // m/s
)

// Sample is one row of a path file: where a player was at time T.
type Sample struct {
	T      time.Duration
	Player int
	Team   int
	Pos    geom.Vec3
	// Vel is the velocity the game had for the player at T (m/s), when
	// HasVel: a path file with PathVelHeader records it, as the led
	// reckoning study's path files did ([led], section VII-A).
	Vel    geom.Vec3
	HasVel bool
}

// FileError is a problem with a path file or a trend map file: the
// file, the line (1-based; 0 when the problem is with the whole file),
// the field or column when known, and what is wrong.
type FileError struct {
	File  string
	Line  int
	Field string
	Msg   string
}

func (e *FileError) Error() string {
	s := e.File
	if e.Line > 0 {
		s += ":" + strconv.Itoa(e.Line)
	}
	if e.Field != "" {
		s += ": " + e.Field
	}
	return s + ": " + e.Msg
}

// ReadPaths reads a path file; name names it in errors, which are all
// *FileError.
func ReadPaths(name string, r io.Reader) ([]Sample, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	fail := func(line int, col, format string, args ...any) error {
		return &FileError{File: name, Line: line, Field: col, Msg: fmt.Sprintf(format, args...)}
	}
	var out []Sample
	fields := 6
	for n := 0; ; n++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			if n == 0 {
				return nil, fail(0, "", "empty file: want the header row %q", PathHeader)
			}
			return out, nil
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, fail(pe.Line, "", "%v", pe.Err)
			}
			return nil, fail(0, "", "%v", err)
		}
		line, _ := cr.FieldPos(0)
		if n == 0 {
			if joinFields(rec) == PathVelHeader {
				fields = 9
				continue
			}
			if len(rec) != 6 || rec[0] != "time" || rec[1] != "player" || rec[2] != "team" ||
				rec[3] != "x" || rec[4] != "y" || rec[5] != "z" {
				msg := fmt.Sprintf("header row is %q, want %q", joinFields(rec), PathHeader)
				if slices.Contains(rec, "seat") && slices.Contains(rec, "round") {
					// lagkit study export's table of every round's paths.
					msg += ": this is a study's table of paths; lagkit study export also writes each round's paths in this format, as paths-study<ID>-round<N>.csv"
				}
				return nil, fail(line, "", "%s", msg)
			}
			continue
		}
		if len(rec) != fields {
			header := PathHeader
			if fields == 9 {
				header = PathVelHeader
			}
			return nil, fail(line, "", "%d fields, want %d (%s)", len(rec), fields, header)
		}
		var s Sample
		var v [9]float64
		for i, f := range rec {
			x, err := strconv.ParseFloat(f, 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fail(line, pathColumns[i], "%q is not a finite number", f)
			}
			v[i] = x
		}
		if !(v[0] >= 0 && v[0] <= MaxPathTime.Seconds()) {
			return nil, fail(line, "time", "%v s outside 0..%v s", v[0], MaxPathTime.Seconds())
		}
		for i := 1; i <= 2; i++ {
			if v[i] != math.Trunc(v[i]) || v[i] < 0 || v[i] >= MaxPathPlayer {
				return nil, fail(line, pathColumns[i], "%v is not an integer in 0..%d", v[i], MaxPathPlayer-1)
			}
		}
		for i := 3; i <= 5; i++ {
			if math.Abs(v[i]) > MaxPathCoord {
				return nil, fail(line, pathColumns[i], "%v m is further than %v m from the origin", v[i], MaxPathCoord)
			}
		}
		s.T = time.Duration(math.Round(v[0] * 1e9))
		s.Player, s.Team = int(v[1]), int(v[2])
		s.Pos = geom.V(v[3], v[4], v[5])
		if fields == 9 {
			for i := 6; i <= 8; i++ {
				if math.Abs(v[i]) > MaxPathVel {
					return nil, fail(line, pathColumns[i], "%v m/s is faster than %v m/s", v[i], MaxPathVel)
				}
			}
			s.Vel, s.HasVel = geom.V(v[6], v[7], v[8]), true
		}
		out = append(out, s)
	}
}

var pathColumns = [9]string{"time", "player", "team", "x", "y", "z", "vx", "vy", "vz"}

func joinFields(rec []string) string {
	var b []byte
	for i, f := range rec {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, f...)
	}
	return string(b)
}

// PathWriter writes a path file row by row; with Velocity set before the
// first row, it writes PathVelHeader and each sample's velocity.
type PathWriter struct {
	Velocity bool

	w      *bufio.Writer
	buf    []byte
	header bool
}

// NewPathWriter returns a PathWriter writing to w; the header row comes
// with the first sample, or with Flush if there is none.
func NewPathWriter(w io.Writer) *PathWriter { return &PathWriter{w: bufio.NewWriter(w)} }

// Write writes one sample (positions to the tenth of a millimetre).
func (p *PathWriter) Write(s Sample) error {
	b := p.start()
	b = strconv.AppendFloat(b, s.T.Seconds(), 'f', -1, 64)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(s.Player), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(s.Team), 10)
	for _, c := range [3]float64{s.Pos.X, s.Pos.Y, s.Pos.Z} {
		b = append(b, ',')
		b = strconv.AppendFloat(b, c, 'f', 4, 64)
	}
	if p.Velocity {
		for _, c := range [3]float64{s.Vel.X, s.Vel.Y, s.Vel.Z} {
			b = append(b, ',')
			b = strconv.AppendFloat(b, c, 'f', 4, 64)
		}
	}
	b = append(b, '\n')
	p.buf = b[:0]
	_, err := p.w.Write(b)
	return err
}

// Flush writes any buffered rows.
func (p *PathWriter) Flush() error {
	if b := p.start(); len(b) > 0 {
		if _, err := p.w.Write(b); err != nil {
			return err
		}
	}
	return p.w.Flush()
}

// start returns the row buffer, holding the header row if it is due.
func (p *PathWriter) start() []byte {
	b := p.buf[:0]
	if !p.header {
		p.header = true
		if p.Velocity {
			b = append(b, PathVelHeader+"\n"...)
		} else {
			b = append(b, PathHeader+"\n"...)
		}
	}
	return b
}

// Track is one continuous stretch of a player's path, in time order.
type Track struct {
	Player, Team int
	Samples      []Sample
}

// Tracks splits samples into each player's continuous stretches, split
// at gaps longer than MaxGap and jumps faster than MaxSpeed, ordered by
// player and time. Samples at the same time as the one before are
// dropped.
func Tracks(samples []Sample) []Track {
	s := slices.Clone(samples)
	slices.SortStableFunc(s, func(a, b Sample) int {
		return cmp.Or(cmp.Compare(a.Player, b.Player), cmp.Compare(a.T, b.T))
	})
	var out []Track
	for _, x := range s {
		if n := len(out); n > 0 && out[n-1].Player == x.Player {
			t := &out[n-1]
			prev := t.Samples[len(t.Samples)-1]
			dt := x.T - prev.T
			if dt == 0 {
				continue
			}
			if dt <= MaxGap && x.Team == prev.Team && x.Pos.Dist(prev.Pos) <= MaxSpeed*dt.Seconds() {
				t.Samples = append(t.Samples, x)
				continue
			}
		}
		out = append(out, Track{Player: x.Player, Team: x.Team, Samples: []Sample{x}})
	}
	return out
}

// AppendPaths adds a path file's samples to all, numbering its players
// after those all holds, so that players of different files stay apart.
func AppendPaths(all, s []Sample) []Sample {
	base := 0
	for _, x := range all {
		base = max(base, x.Player+1)
	}
	for _, x := range s {
		x.Player += base
		all = append(all, x)
	}
	return all
}

// ReadPathFiles reads the path files at paths, each file's players
// numbered after the ones before (AppendPaths).
func ReadPathFiles(paths []string) ([]Sample, error) {
	var samples []Sample
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		s, err := ReadPaths(path, f)
		f.Close()
		if err != nil {
			return nil, err
		}
		samples = AppendPaths(samples, s)
	}
	return samples, nil
}
