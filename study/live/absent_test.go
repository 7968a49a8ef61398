package live

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/realtime/serve"
	"github.com/lagkit/lagkit/record"
	"github.com/lagkit/lagkit/store"
	"github.com/lagkit/lagkit/study"
)

const absentSchedule = `name = "short"
[[seat]]
count = 2
[[seat]]
bot = true
[[technique]]
name = "tlc"
[[round]]
name = "a"
map = "arena"
mode = "ffa"
duration = "2s"
`

// TestAbsentSeats: a session handed fixed codes and a person's seat no
// one takes (an online match formed short of people) gives the taken
// seat its code, plays the absent seat with a bot from the start and
// records it as a bot's seat without a code; the schedule's key is
// the same. Codes and absent seats that name no person's seat are
// refused.
func TestAbsentSeats(t *testing.T) {
	s, err := study.Parse("short.toml", []byte(absentSchedule))
	if err != nil {
		t.Fatal(err)
	}
	host := realtime.NewHost(quiet, nil)
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Absent: []int{2}}, "absent seat 2 is a bot's seat already"},
		{Config{Absent: []int{5}}, "absent seat 5: the schedule has seats 0 to 2"},
		{Config{Absent: []int{1}, Codes: map[int]string{1: "ZZ9"}}, "absent seat 1 has a participant code"},
		{Config{Codes: map[int]string{2: "ZZ9"}}, "a participant code for seat 2, which is no person's seat"},
	} {
		c.cfg.Schedule, c.cfg.Host = s, host
		if _, err := New(c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
	d, err := New(Config{Schedule: s, Host: host, Codes: map[int]string{0: "ANN7"}, Absent: []int{1}})
	if err != nil {
		t.Fatal(err)
	}
	if codes := d.Codes(); len(codes) != 1 || codes[0] != "ANN7" || !d.BotPlays(1) || d.BotPlays(0) {
		t.Fatalf("codes %v, bot plays seat 0 %v, seat 1 %v", codes, d.BotPlays(0), d.BotPlays(1))
	}

	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var out bytes.Buffer
	err = Serve(ctx, s, db, ServeOptions{
		Listeners: serve.Listeners{Listen: "127.0.0.1:0"}, AutoStart: true, Seed: 3, Log: quiet, Out: &out,
		Codes: map[int]string{0: "ANN7"}, Absent: []int{1},
	})
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if links := strings.Count(out.String(), "?code="); links != 1 || !strings.Contains(out.String(), "seat 0: https://") {
		t.Errorf("%d join links:\n%s", links, out.String())
	}
	ids, err := db.Studies(ctx)
	if err != nil || len(ids) != 1 {
		t.Fatalf("studies %v, %v", ids, err)
	}
	if ids[0].ScheduleKey != s.Key() {
		t.Errorf("stored key %s, the schedule's %s", ids[0].ScheduleKey, s.Key())
	}
	seen := map[int]record.Participant{}
	if err := store.Each(ctx, db, ids[0].ID, func(p record.Participant) error { seen[p.Seat] = p; return nil }); err != nil {
		t.Fatal(err)
	}
	if p := seen[0]; p.Bot || p.Code != "ANN7" {
		t.Errorf("seat 0 recorded %+v", p)
	}
	if p := seen[1]; !p.Bot || p.Code != "" {
		t.Errorf("the absent seat recorded %+v", p)
	}
	// The absent seat's bot played the round from its start (its
	// connect is recorded as a bot's is); no one connected to seat 0.
	connects := map[int]int{}
	if err := store.Each(ctx, db, ids[0].ID, func(x record.Session) error {
		if x.Kind == record.Connect {
			connects[x.Seat]++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if connects[1] != 1 || connects[2] != 1 || connects[0] != 0 {
		t.Errorf("connects by seat: %v, want one each for the absent seat and the bot's", connects)
	}
}
