package experiment

import "testing"

// FuzzParseShard: any text either parses to a shard that names one of n
// parts and reads back as itself, or is refused with an error; it never
// panics.
func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"", "1/1", "2/4", "0/2", "3/2", "+1/2", "-1/3", "1/", "/", "a/b", "1/2/3", "9223372036854775807/9223372036854775807", " 1/2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := ParseShard(s)
		if err != nil {
			if sh != (Shard{}) {
				t.Fatalf("%q: error %v with shard %+v", s, err, sh)
			}
			return
		}
		if s == "" {
			if sh != (Shard{}) {
				t.Fatalf("empty shard parsed as %+v", sh)
			}
			return
		}
		if sh.K < 1 || sh.K > sh.N {
			t.Fatalf("%q parsed as %+v: want 1 <= k <= n", s, sh)
		}
		back, err := ParseShard(sh.String())
		if err != nil || back != sh {
			t.Fatalf("%q parsed as %+v, which reads back as %+v (%v)", s, sh, back, err)
		}
		// Exactly the cells k-1 modulo n belong to the shard.
		for i := range 3 * min(sh.N, 4) {
			if sh.has(i) != (i%sh.N == sh.K-1) {
				t.Fatalf("%+v has cell %d: %v", sh, i, sh.has(i))
			}
		}
	})
}
