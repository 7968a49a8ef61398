package match

import (
	"testing"
	"time"
)

// BenchmarkMeasurements plays 20 s of lagkit match's default match
// (12 bots, capture the flag on metro) as it is by default, and asking
// for each optional measurement: its cost is the ratio of its time to
// the default's in the same run. The default pays for none of them
// (TestMatchMeasuresOnlyWhatItIsAsked).
func BenchmarkMeasurements(b *testing.B) {
	for _, c := range []struct {
		name string
		set  func(*Config)
	}{
		{"default", func(*Config) {}},
		{"duels", func(c *Config) { c.Duels = true }},
		{"tick-cpu", func(c *Config) { c.TickCPU = true }},
		{"netcheck", func(c *Config) { c.NetCheck = true }},
	} {
		b.Run(c.name, func(b *testing.B) {
			cfg := Config{Map: "metro", Bots: 12, Duration: 20 * time.Second, Seed: 1, BaseRTTms: DefaultBaseRTTms}
			c.set(&cfg)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Run(cfg, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
