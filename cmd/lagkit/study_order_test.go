package main

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lagkit/lagkit/experiment"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/store"
)

// orderSchedule counterbalances two techniques over four short rounds
// with a Latin square.
const orderSchedule = `name = "order"
[[seat]]
code = "P1"
[[seat]]
count = 2
bot = true
[[technique]]
name = "tlc"
[[technique]]
name = "none"
policy = { name = "none" }
[counterbalance]
design = "latin"
[[latency]]
latency_ms = 20
[[round]]
map = "arena"
mode = "ffa"
duration = "3s"
technique = "tlc"
[[round]]
map = "arena"
mode = "ffa"
duration = "3s"
technique = "none"
`

// TestStudyCounterbalanced: study check prints every group's order and
// the run's; study run --group 1 plays the rounds in group 1's order and
// stores the design, the group and each seat's order in the database,
// which study export writes out, with each seat's link per round as
// injected and as measured.
func TestStudyCounterbalanced(t *testing.T) {
	tmp := t.TempDir()
	sched := filepath.Join(tmp, "order.toml")
	if err := os.WriteFile(sched, []byte(orderSchedule), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := lagkit("study", "check", sched, "--group", "1")
	if code != 0 {
		t.Fatalf("check: exit %d, %s", code, errOut)
	}
	for _, want := range []string{"counterbalanced: design latin of tlc, none, 2 groups", "  group 0: tlc, none\n",
		"  group 1: none, tlc   <- this run", "order of techniques by round, every seat (group 1): none, tlc"} {
		if !strings.Contains(out, want) {
			t.Errorf("check lacks %q:\n%s", want, out)
		}
	}
	if code, _, errOut := lagkit("study", "check", sched, "--group", "2"); code != 2 || !strings.Contains(errOut, "group 2: design latin of 2 techniques has 2 groups (0 to 1)") {
		t.Errorf("check --group 2: exit %d, %q", code, errOut)
	}
	if code, out, _ := lagkit("study", "check", "../../presets/alc.toml"); code != 0 || !strings.Contains(out, "order of techniques by round, every seat: tlc, alc") {
		t.Errorf("alc check: exit %d, %q", code, out)
	}

	db := filepath.Join(tmp, "study.db")
	code, _, errOut = lagkit("study", "run", sched, "--simulate", "--group", "1", "--seed", "3", "--out", filepath.Join(tmp, "out"), "--db", db)
	if code != 0 {
		t.Fatalf("run: exit %d, %s", code, errOut)
	}
	ctx := context.Background()
	d, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	studies, err := d.Studies(ctx)
	if err != nil || len(studies) != 1 {
		t.Fatalf("studies %v, %v", studies, err)
	}
	if st := studies[0]; st.Design != "latin" || st.Group != 1 {
		t.Errorf("study stored with design %q group %d, want latin 1", st.Design, st.Group)
	}
	rounds, err := store.All[record.Round](ctx, d, studies[0].ID)
	if err != nil || len(rounds) != 2 || rounds[0].Technique != "none" || rounds[1].Technique != "tlc" {
		t.Errorf("rounds %+v, %v; want none then tlc", rounds, err)
	}
	orders, err := store.All[record.SeatOrder](ctx, d, studies[0].ID)
	if err != nil || len(orders) != 3 {
		t.Fatalf("seat orders %+v, %v", orders, err)
	}
	for i, o := range orders {
		if o != (record.SeatOrder{Seat: i, Group: 1, Design: "latin", Order: "none,tlc"}) {
			t.Errorf("seat order %+v", o)
		}
	}
	// Provenance: the lagkit and Go that ran it (a test binary carries
	// no VCS stamp, so the revision is read from the checkout and the
	// build note says so), the tick rate, the techniques by name with
	// their settings, each round's seed and loadout, each seat's
	// injected jitter and loss.
	st := studies[0]
	if st.Version == "" || st.GoVersion == "" || st.TickRate != 64 || st.BuildNote == "" ||
		(st.Revision == "" && !strings.Contains(st.BuildNote, "go test")) ||
		(st.Revision != "" && !strings.Contains(st.BuildNote, "git")) {
		t.Errorf("study provenance %+v", st)
	}
	techs, _ := store.All[record.Technique](ctx, d, st.ID)
	if len(techs) != 2 || techs[0].Name != "tlc" || !strings.HasPrefix(techs[1].Setting, "policy=none ") {
		t.Errorf("techniques %+v", techs)
	}
	for k, r := range rounds {
		if r.Seed != experiment.ReplicateSeed(3, 0) || r.Weapons != "rifle" {
			t.Errorf("round %d seed %d weapons %q, want %d and rifle", k+1, r.Seed, r.Weapons, experiment.ReplicateSeed(3, 0))
		}
	}
	parts, _ := store.All[record.Participant](ctx, d, st.ID)
	if len(parts) != 6 || parts[0].LatencyMS != 20 || parts[0].JitterMS != 0 || parts[0].Loss != 0 {
		t.Errorf("participants %+v", parts)
	}

	// The manipulation check of the simulated rounds: 20 ms each way
	// injected, 40 ms measured by the server and by each client.
	nets, err := store.All[record.Network](ctx, d, studies[0].ID)
	if err != nil || len(nets) != 6 {
		t.Fatalf("network records %+v, %v; want 3 seats x 2 rounds", nets, err)
	}
	for _, n := range nets {
		if n.LatencyMS != 20 || n.RTTSamples < 40 || n.RTTMeanMS < 39 || n.RTTMeanMS > 42 || n.ClientSamples < 40 ||
			n.ClientRTTMeanMS < 39 || n.ClientRTTMeanMS > 42 || n.DelayUpMS != 20 || n.DelayDownMS != 20 || n.LossUp != 0 {
			t.Errorf("network %+v; want 20 ms injected, 40 ms measured", n)
		}
	}
	ex := filepath.Join(tmp, "export")
	if code, _, errOut := lagkit("study", "export", "--db", db, "--out", ex); code != 0 {
		t.Fatalf("export: exit %d, %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(ex, "network.csv")); err != nil {
		t.Error(err)
	}
	f, err := os.Open(filepath.Join(ex, "seat_orders.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"study", "study_id", "seat", "counterbalance_group", "design", "technique_order"}; len(recs) != 4 || !slices.Equal(recs[0], want) ||
		!slices.Equal(recs[1], []string{"1", "1", "0", "1", "latin", "none,tlc"}) {
		t.Errorf("seat_orders.csv %q", recs)
	}
}
