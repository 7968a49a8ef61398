package wire

import (
	"math"
	"testing"
)

// BenchmarkDecodeHitEvent decodes the hit events of hitEvents that lie
// within ±MaxLocal, lagkit's own and a game body's near hits: what
// every hit of lagkit's shooter costs a victim's client.
func BenchmarkDecodeHitEvent(b *testing.B) {
	var data [][]byte
	for _, e := range hitEvents() {
		if max(math.Abs(e.Local.X), math.Abs(e.Local.Y), math.Abs(e.Local.Z)) > MaxLocal {
			continue
		}
		d, err := AppendHitEvent(nil, &e)
		if err != nil {
			b.Fatal(err)
		}
		data = append(data, d)
	}
	var got HitEvent
	b.ReportAllocs()
	for b.Loop() {
		for _, d := range data {
			if err := DecodeHitEvent(d, &got); err != nil {
				b.Fatal(err)
			}
		}
	}
}
