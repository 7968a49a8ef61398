package delay

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
)

func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		c    Config
		want string
	}{
		{Config{Mode: "slow"}, `unknown delay mode "slow", want none, delay or adaptive`},
		{Config{Mode: Adaptive, Trigger: "smell"}, `unknown trigger "smell", want proximity, fov or proximity-or-fov`},
		{Config{Mode: Adaptive, On: -1}, "on radius -1 m"},
		{Config{Mode: Adaptive, On: math.NaN()}, "on radius NaN m"},
		{Config{Mode: Adaptive, On: 20, Off: 10}, "off radius 10 m below the on radius 20 m"},
		{Config{Mode: Adaptive, Adaptation: -time.Second}, "adaptation -1s outside 0..10s"},
		{Config{Mode: Regular, Adaptation: time.Minute}, "adaptation 1m0s outside 0..10s"},
		{Config{Mode: Regular, Max: -time.Millisecond}, "max -1ms outside 0..1s"},
	} {
		if _, err := tc.c.WithDefaults(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.c, err, tc.want)
		}
	}
	d, err := Config{Mode: Adaptive}.WithDefaults()
	if err != nil || d.Trigger != Proximity || d.On != 20 || d.Off != 25 || d.Max != 100*time.Millisecond || d.Adaptation != 0 {
		t.Errorf("defaults %+v, %v", d, err)
	}
	if d, _ := (Config{}).WithDefaults(); d.Mode != None {
		t.Errorf("default mode %q, want none", d.Mode)
	}
}

// TestRegistries: the names for command-line help are the registered
// ones, in the order registered, and each builds.
func TestRegistries(t *testing.T) {
	if got := Modes.Names(); !slices.Equal(got, []string{None, Regular, Adaptive}) {
		t.Errorf("Modes.Names() = %v", got)
	}
	if got := Triggers.Names(); !slices.Equal(got, []string{Proximity, FOV, ProximityOrFOV}) {
		t.Errorf("Triggers.Names() = %v", got)
	}
	for _, m := range Modes.Names() {
		for _, tr := range Triggers.Names() {
			newBench(t, nil, Config{Mode: m, Trigger: tr}, 10*ms, 75*ms).run(2)
		}
	}
}

// TestNoneAddsNothing: mode none never adds delay, holds no command, and
// needs no room to hold any.
func TestNoneAddsNothing(t *testing.T) {
	b := newBench(t, nil, Config{}, 10*ms, 75*ms)
	b.run(64)
	if b.d.Added(0) != 0 || b.d.MaxTicks() != 0 {
		t.Fatalf("added %v, room for %d ticks", b.d.Added(0), b.d.MaxTicks())
	}
	if release, _ := b.d.Arrive(0, time.Second, &game.UserCmd{Buttons: game.BtnFire}); release != 0 {
		t.Fatalf("a command held until %v", release)
	}
}

// TestStats: the delay is recorded per tick: on from the first reading
// (tick 2) for the fast player, never for the slow one; new inputs count
// with their waits; a new player in a slot starts afresh.
func TestStats(t *testing.T) {
	b := newBench(t, nil, Config{Mode: Regular}, 10*ms, 75*ms)
	b.run(64)
	b.d.Executed(0, 10*ms)
	b.d.Executed(0, 30*ms)
	f, w := b.d.Stats(0), b.d.Stats(1)
	if f.Observed != 64*tick || f.Active != 63*tick || f.Mean != 65*ms*63/64 || f.NewInputs != 2 || f.InputWait != 20*ms {
		t.Errorf("fast: %+v; want 64 ticks observed, 63 active, mean 63/64 of 65ms, 2 inputs waiting 20ms", f)
	}
	if w.Active != 0 || w.Mean != 0 {
		t.Errorf("slow: %+v; want no delay", w)
	}
	// Trigger presses: the first after an idle second gets the full
	// 65 ms, the second 40 ms after a release gets those 40 ms (rule 3);
	// holding and releasing the trigger are no presses.
	now := time.Duration(b.n) * tick
	for _, c := range []struct {
		at      time.Duration
		buttons game.Buttons
	}{{now, game.BtnFire}, {now + 10*ms, game.BtnFire}, {now + 20*ms, 0}, {now + 60*ms, game.BtnFire}} {
		b.d.Arrive(0, c.at, &game.UserCmd{Buttons: c.buttons})
	}
	if st := b.d.Stats(0); st.FirePresses != 2 || st.FireHold != (65*ms+40*ms)/2 {
		t.Errorf("fast: %d presses held %v on average; want 2 and %v", st.FirePresses, st.FireHold, (65*ms+40*ms)/2)
	}
	b.d.Join(0)
	if st := b.d.Stats(0); st != (Stats{}) {
		t.Errorf("after a new join: %+v", st)
	}
}
