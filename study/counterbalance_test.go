package study

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestWilliamsBalanced: the Latin square of n techniques has n rows for
// even n and 2n for odd n, its first row the schedule's order; every
// technique comes in every place equally often and every ordered pair
// of techniques follows one another equally often (once for even n,
// twice for odd n).
func TestWilliamsBalanced(t *testing.T) {
	for n := 2; n <= 7; n++ {
		rows := williams(n)
		want := n
		if n%2 == 1 {
			want = 2 * n
		}
		if len(rows) != want {
			t.Fatalf("n=%d: %d rows, want %d", n, len(rows), want)
		}
		for i, v := range rows[0] {
			if v != i {
				t.Fatalf("n=%d: first row %v, want the identity", n, rows[0])
			}
		}
		place := map[[2]int]int{}
		follows := map[[2]int]int{}
		for _, row := range rows {
			for c, v := range row {
				place[[2]int{c, v}]++
				if c > 0 {
					follows[[2]int{row[c-1], v}]++
				}
			}
			if s := slices.Sorted(slices.Values(row)); !slices.Equal(s, rows[0]) {
				t.Fatalf("n=%d: row %v is no permutation", n, row)
			}
		}
		for a := range n {
			for b := range n {
				if place[[2]int{a, b}] != len(rows)/n {
					t.Errorf("n=%d: technique %d in place %d %d times, want %d", n, b, a, place[[2]int{a, b}], len(rows)/n)
				}
				if a != b && follows[[2]int{a, b}] != len(rows)/n {
					t.Errorf("n=%d: %d follows %d %d times, want %d", n, b, a, follows[[2]int{a, b}], len(rows)/n)
				}
			}
		}
	}
}

const cbSchedule = `name = "cb"
[[seat]]
code = "p1"
[[seat]]
bot = true
[[technique]]
name = "tlc"
[[technique]]
name = "alc"
policy = { name = "alc" }
[[technique]]
name = "practice"
policy = { name = "none" }
[counterbalance]
design = "latin"
techniques = ["tlc", "alc"]
[[round]]
map = "arena"
mode = "ffa"
duration = "30s"
technique = "practice"
[[round]]
map = "arena"
mode = "ffa"
duration = "30s"
technique = "tlc"
[[round]]
map = "arena"
mode = "ffa"
duration = "30s"
technique = "alc"
[[round]]
map = "arena"
mode = "ffa"
duration = "30s"
technique = "tlc"
`

func techniquesOf(s *Schedule) []string {
	var out []string
	for _, p := range s.Plans() {
		out = append(out, p.Technique.Name)
	}
	return out
}

// TestCounterbalanceGroups: group 0 plays the rounds as written; group 1
// swaps the listed techniques round by round and keeps the practice
// round; replicates count per technique as played; the group is part of
// the key; the orders by seat are the group's.
func TestCounterbalanceGroups(t *testing.T) {
	s, err := Parse("cb.toml", []byte(cbSchedule))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := techniquesOf(s), []string{"practice", "tlc", "alc", "tlc"}; !slices.Equal(got, want) {
		t.Fatalf("group 0 plays %v, want %v", got, want)
	}
	key0 := s.Key()
	if err := s.SetGroup(1); err != nil {
		t.Fatal(err)
	}
	if got, want := techniquesOf(s), []string{"practice", "alc", "tlc", "alc"}; !slices.Equal(got, want) {
		t.Fatalf("group 1 plays %v, want %v", got, want)
	}
	if r := s.Plans()[3].Replicate; r != 1 {
		t.Errorf("round 4 (alc's second) replicate %d, want 1", r)
	}
	if s.Key() == key0 {
		t.Error("group 1 has group 0's key")
	}
	o, _ := s.ParseAlike(cbSchedule, 0)
	if d := Differences(o, s); !slices.Contains(d, "counterbalance group: 0 stored, 1 now") {
		t.Errorf("differences %q lack the group", d)
	}
	for seat, order := range s.SeatOrders() {
		if !slices.Equal(order, []string{"practice", "alc", "tlc", "alc"}) {
			t.Errorf("seat %d order %v", seat, order)
		}
	}
	if err := s.SetGroup(2); err == nil || !strings.Contains(err.Error(), "group 2: design latin of 2 techniques has 2 groups (0 to 1)") {
		t.Errorf("SetGroup(2): %v", err)
	}
	sum := s.Summary()
	if c := sum.Counterbalance; c == nil || c.Groups != 2 || c.Group != 1 || !slices.Equal(c.Order, []string{"alc", "tlc"}) || len(c.Orders) != 2 {
		t.Errorf("summary %+v", sum.Counterbalance)
	}
}

// TestCounterbalanceRandom: a random design draws each group's order
// from its seed, the same each time, any group number having one.
func TestCounterbalanceRandom(t *testing.T) {
	text := strings.Replace(cbSchedule, `design = "latin"`, "design = \"random\"\nseed = 7", 1)
	text = strings.Replace(text, `techniques = ["tlc", "alc"]`, `techniques = ["tlc", "alc", "practice"]`, 1)
	orders := map[string]bool{}
	for g := range 40 {
		a, err := Parse("cb.toml", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := Parse("cb.toml", []byte(text))
		if err := a.SetGroup(g); err != nil {
			t.Fatal(err)
		}
		_ = b.SetGroup(g)
		if !slices.Equal(techniquesOf(a), techniquesOf(b)) {
			t.Fatalf("group %d: %v then %v", g, techniquesOf(a), techniquesOf(b))
		}
		orders[strings.Join(a.Counterbalance.Order(g), ",")] = true
	}
	if len(orders) != 6 {
		t.Errorf("40 groups drew %d of the 6 orders", len(orders))
	}
}

// TestCounterbalanceErrors: what a schedule may not say.
func TestCounterbalanceErrors(t *testing.T) {
	cases := []struct{ old, new, want string }{
		{`design = "latin"`, `design = "abba"`, `counterbalance.design: unknown design "abba", want one of latin, random`},
		{`design = "latin"`, "design = \"latin\"\nseed = 3", "counterbalance.seed: only design random"},
		{`techniques = ["tlc", "alc"]`, `techniques = ["tlc", "dlc"]`, `counterbalance.techniques[1]: unknown technique "dlc"`},
		{`techniques = ["tlc", "alc"]`, `techniques = ["tlc", "tlc"]`, `counterbalance.techniques[1]: "tlc" is listed twice`},
		{`techniques = ["tlc", "alc"]`, `techniques = ["tlc"]`, "counterbalancing orders two or more"},
		{`design = "latin"`, "design = \"latin\"\ngroup = 2", "counterbalance.group: 2, but design latin of 2 techniques has 2 groups (0 to 1)"},
		{"duration = \"30s\"\ntechnique = \"alc\"", "duration = \"30s\"\ntechnique = \"alc\"\nname = \"tlc\"",
			`round[2].name: "tlc" names a technique, but counterbalancing gives this round other techniques`},
	}
	for _, c := range cases {
		text := strings.Replace(cbSchedule, c.old, c.new, 1)
		_, err := Parse("cb.toml", []byte(text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.new, err, c.want)
		}
	}
	// A technique that fits a round's mode must fit it in every group:
	// time warp needs policy none.
	tw := strings.Replace(cbSchedule, "name = \"alc\"\npolicy = { name = \"alc\" }", "name = \"alc\"\npolicy = { name = \"none\" }\ntime_warp = \"200ms\"", 1)
	tw = strings.Replace(tw, `mode = "ffa"`+"\nduration = \"30s\"\ntechnique = \"tlc\"", `mode = "ctf"`+"\nduration = \"30s\"\ntechnique = \"tlc\"", 1)
	if _, err := Parse("cb.toml", []byte(tw)); err == nil || !strings.Contains(err.Error(), `counterbalancing gives this round technique "alc"`) {
		t.Errorf("time warp in ctf: %v", err)
	}
}

// cb2x2 plays tlc and alc each at a low and a high latency block, the
// latency written on the rounds.
const cb2x2 = `name = "cb2x2"
[[seat]]
count = 2
[[seat]]
bot = true
[[technique]]
name = "tlc"
[[technique]]
name = "alc"
policy = { name = "alc" }
[[latency]]
latency_ms = 10
[[round]]
map = "arena"
mode = "ffa"
duration = "30s"
technique = "tlc"
latency = [{ seats = [0, 1], latency_ms = 25 }]
[[round]]
map = "arena"
mode = "ffa"
duration = "30s"
technique = "alc"
latency = [{ seats = [0, 1], latency_ms = 25 }]
[[round]]
map = "arena"
mode = "ffa"
duration = "30s"
technique = "tlc"
latency = [{ seats = [0, 1], latency_ms = 125 }]
[[round]]
map = "arena"
mode = "ffa"
duration = "30s"
technique = "alc"
latency = [{ seats = [0, 1], latency_ms = 125 }]
[counterbalance]
design = "latin"
`

// TestCounterbalanceTechniqueByLatency: a schedule whose rounds vary
// technique and latency is counterbalanced over the four technique ×
// latency conditions by default (it moved techniques alone before, the
// latency blocks staying in their periods in every group): four groups,
// every condition in every period once across them, each round's
// injected latency moving with its condition, and the seats' orders
// naming the conditions. factors = ["latency"] moves the latency alone.
func TestCounterbalanceTechniqueByLatency(t *testing.T) {
	s, err := Parse("cb2x2.toml", []byte(cb2x2))
	if err != nil {
		t.Fatal(err)
	}
	c := s.Counterbalance
	if !slices.Equal(c.Factors, []string{FactorTechnique, FactorLatency}) || c.Groups() != 4 {
		t.Fatalf("factors %v, %d groups, want technique × latency in 4", c.Factors, c.Groups())
	}
	conds := []string{"tlc / 25 ms seats 0 1", "alc / 25 ms seats 0 1", "tlc / 125 ms seats 0 1", "alc / 125 ms seats 0 1"}
	if !slices.Equal(c.Conditions(), conds) {
		t.Fatalf("conditions %q", c.Conditions())
	}
	inPeriod := map[[2]string]int{}
	for g := range 4 {
		if err := s.SetGroup(g); err != nil {
			t.Fatal(err)
		}
		order := s.SeatOrders()[0]
		if !slices.Equal(order, c.Order(g)) {
			t.Fatalf("group %d: seats play %q, the design says %q", g, order, c.Order(g))
		}
		for k, p := range s.Plans() {
			inPeriod[[2]string{order[k], strconv.Itoa(k)}]++
			// The condition's technique and latency, the bot's base.
			want := "25"
			if strings.Contains(order[k], "125 ms") {
				want = "125"
			}
			if !strings.HasPrefix(order[k], p.Technique.Name+" / ") || fmt.Sprint(p.Links[0].LatencyMS) != want || p.Links[2].LatencyMS != 10 {
				t.Errorf("group %d round %d: %s at %v ms, its condition %q", g, k+1, p.Technique.Name, p.Links[0].LatencyMS, order[k])
			}
		}
	}
	for _, cond := range conds {
		for k := range 4 {
			if n := inPeriod[[2]string{cond, strconv.Itoa(k)}]; n != 1 {
				t.Errorf("%s in period %d %d times across the groups, want 1", cond, k+1, n)
			}
		}
	}
	var b strings.Builder
	s.Summary().WriteText(&b)
	for _, want := range []string{"counterbalanced: design latin of tlc / 25 ms seats 0 1, alc / 25 ms seats 0 1, tlc / 125 ms seats 0 1, alc / 125 ms seats 0 1, 4 groups",
		"the design moves technique × latency", "order of conditions by round, every seat (group 3): "} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}

	lat, err := Parse("cb2x2.toml", []byte(strings.Replace(cb2x2, `design = "latin"`, "design = \"latin\"\nfactors = [\"latency\"]", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if err := lat.SetGroup(1); err != nil {
		t.Fatal(err)
	}
	if got, want := techniquesOf(lat), []string{"tlc", "alc", "tlc", "alc"}; !slices.Equal(got, want) {
		t.Errorf("latency alone: group 1 plays %v, want the techniques as written", got)
	}
	if o := lat.SeatOrders()[0]; !slices.Equal(o, []string{"125 ms seats 0 1", "125 ms seats 0 1", "25 ms seats 0 1", "25 ms seats 0 1"}) || lat.Plans()[0].Links[0].LatencyMS != 125 {
		t.Errorf("latency alone: group 1's order %q", o)
	}
	if _, err := Parse("cb2x2.toml", []byte(strings.Replace(cb2x2, `design = "latin"`, "design = \"latin\"\nfactors = [\"speed\"]", 1))); err == nil ||
		!strings.Contains(err.Error(), `counterbalance.factors[0]: unknown factor "speed"`) {
		t.Errorf("an unknown factor: %v", err)
	}
}
