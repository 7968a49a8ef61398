package match

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// FuzzParseLatency: --latency either parses to a table that, written
// back as PLAYER:MS pairs, parses to the same table, or is refused with a
// error and no table; it never panics.
func FuzzParseLatency(f *testing.F) {
	for _, s := range []string{"", "2:250", "2:250,5:250", " 1:0 , 3:12.5", "1:NaN", "1:-Inf", "x:1", "1:", ":", ",", "1:1,1:2", "-3:1e308", "1:0x1p-2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lat, err := ParseLatency(s, 12)
		if err != nil {
			if lat != nil {
				t.Fatalf("%q: %v, table %v: want no table with the error", s, err, lat)
			}
			return
		}
		var pairs []string
		for id, ms := range lat {
			pairs = append(pairs, strconv.Itoa(id)+":"+strconv.FormatFloat(ms, 'g', -1, 64))
		}
		back, err := ParseLatency(strings.Join(pairs, ","), 12)
		if err != nil || len(back) != len(lat) {
			t.Fatalf("%q parsed as %v, which reads back as %v (%v)", s, lat, back, err)
		}
		for id, ms := range lat {
			if b, ok := back[id]; !ok || b != ms && !(math.IsNaN(b) && math.IsNaN(ms)) {
				t.Fatalf("%q: player %d at %v reads back as %v", s, id, ms, b)
			}
		}
	})
}
