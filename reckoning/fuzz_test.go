package reckoning

import (
	"bytes"
	"errors"
	"testing"

	"github.com/lagkit/lagkit/internal/cfgfile"
)

// FuzzReadPaths checks that ReadPaths never panics, that its errors are
// *FileError, and that what it accepts survives PathWriter and ReadPaths
// to the tenth of a millimetre.
func FuzzReadPaths(f *testing.F) {
	f.Add([]byte(PathHeader + "\n0.015625,3,1,-12.5,3.25,0\n2,0,0,1,2,3\n"))
	f.Add([]byte(PathHeader + "\r\n0,1,0,1,2,3\r\n"))
	f.Add([]byte(PathHeader + "\n0,1,0,\"1\",2,3\n1e308,1,0,1,2,3\n"))
	f.Add([]byte("time,player\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadPaths("fuzz.csv", bytes.NewReader(data))
		if err != nil {
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is a %T, want *FileError", err, err)
			}
			return
		}
		var buf bytes.Buffer
		w := NewPathWriter(&buf)
		for _, x := range s {
			if err := w.Write(x); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		back, err := ReadPaths("again.csv", &buf)
		if err != nil {
			t.Fatalf("re-reading: %v\n%s", err, buf.String())
		}
		if len(back) != len(s) {
			t.Fatalf("%d samples back, want %d", len(back), len(s))
		}
		for i := range s {
			if back[i].T != s[i].T || back[i].Player != s[i].Player || back[i].Team != s[i].Team || back[i].Pos.Dist(s[i].Pos) > 1e-4 {
				t.Fatalf("sample %d: %+v back as %+v", i, s[i], back[i])
			}
		}
		Tracks(s)
	})
}

// FuzzParseTrend checks that Parse never panics, that its errors are
// *cfgfile.Error, and that a trend map it accepts survives Write and
// Parse.
func FuzzParseTrend(f *testing.F) {
	f.Add([]byte(goodTrend))
	f.Add([]byte(`{"map":"x","team":-1,"bounds":{"min":[0,0],"max":[1,1]},"nx":1,"ny":1,"cells":[]}`))
	f.Add([]byte(`{"map":"x","cells":[[0,0,1e999,1]]}`))
	for _, name := range []string{"metro.json", "arena-team1.json"} {
		if data, err := shipped.ReadFile("trends/" + name); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse("fuzz.json", data)
		if err != nil {
			var e *cfgfile.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is a %T, want *cfgfile.Error", err, err)
			}
			return
		}
		var buf bytes.Buffer
		if err := m.Write(&buf); err != nil {
			t.Fatalf("writing an accepted trend map: %v", err)
		}
		back, err := Parse("again.json", buf.Bytes())
		if err != nil {
			t.Fatalf("re-parsing: %v\n%s", err, buf.String())
		}
		if back.Map != m.Map || back.Team != m.Team || back.Bounds != m.Bounds || back.NX != m.NX || back.NY != m.NY {
			t.Fatalf("header changed: %+v, back %+v", m, back)
		}
		for k := range m.Cells {
			a, b := m.Cells[k], back.Cells[k]
			if a.N != b.N || a.N > 0 && Correlation(a.Dir, b.Dir) < 1-1e-6 {
				t.Fatalf("cell %d: %+v, back %+v", k, a, b)
			}
		}
	})
}
