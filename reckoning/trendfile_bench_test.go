package reckoning

import (
	"bytes"
	"fmt"
	"strconv"
	"testing"
)

// trendFileOfSize returns a valid trend map file of at least size bytes:
// a 400 x 400 grid whose cells are listed row by row, with angles and
// counts of the lengths trend build writes.
func trendFileOfSize(size int) []byte {
	var b bytes.Buffer
	b.WriteString("{\n  \"map\": \"metro\",\n  \"team\": -1,\n  \"bounds\": {\"min\": [-32, -14], \"max\": [32, 14]},\n  \"nx\": 400,\n  \"ny\": 400,\n  \"cells\": [")
	for k := 0; b.Len() < size && k < MaxGrid*MaxGrid; k++ {
		if k > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "\n    [%d, %d, %s, %d]", k%MaxGrid, k/MaxGrid, strconv.FormatFloat(float64(k%36000)/100, 'f', -1, 64), 1+k%97)
	}
	b.WriteString("\n  ]\n}\n")
	return b.Bytes()
}

// BenchmarkParseTrend parses trend map files of 1 and 4 MiB: the time
// per byte must stay flat as the file grows.
func BenchmarkParseTrend(b *testing.B) {
	for _, mib := range []int{1, 4} {
		data := trendFileOfSize(mib << 20)
		b.Run(fmt.Sprintf("%dMiB", mib), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := Parse("bench.json", data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
