package lagcomp

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
)

// TestTraitsMatchBehaviour: every registered policy does no more than
// its Traits declare. One that declares no rewinding never rewinds a
// shot; one that declares no appeal window never makes a hit provisional;
// one that declares a window does appeal some hit, so the window is not
// a leftover.
func TestTraitsMatchBehaviour(t *testing.T) {
	const ms = time.Millisecond
	rtts := []time.Duration{0, 20 * ms, 50 * ms, 51 * ms, 150 * ms, 250 * ms, 251 * ms, time.Second}
	for _, name := range Policies.Names() {
		p, err := New(Config{Name: name, MaxRollbackM: 0.5})
		if err != nil {
			t.Fatal(err)
		}
		tr := p.Traits()
		appealed := false
		for _, shooterRTT := range rtts {
			shot := &Shot{Now: time.Second, Target: time.Second - shooterRTT, ShooterRTT: shooterRTT, Eye: geom.V(0, 0, 1.6)}
			if p.Rewind(shot) && !tr.Rewinds {
				t.Errorf("%s: rewound a shot at %v round trip but declares it never rewinds", name, shooterRTT)
			}
			for _, victimRTT := range rtts {
				for _, rollback := range []float64{0, 0.3, 2} {
					f := &Found{Hit: Hit{Victim: 1, Part: game.PartTorso}, Rewound: rollback > 0, RollbackM: rollback, VictimRTT: victimRTT}
					if p.Judge(shot, f) == Appeal {
						appealed = true
					}
				}
			}
		}
		if appealed != (tr.AppealWindow > 0) {
			t.Errorf("%s: appeals %v, but declares an appeal window of %v", name, appealed, tr.AppealWindow)
		}
	}
}

// TestAppealWindowIsTwiceLowPing: alc declares twice its low-ping
// threshold, whatever the threshold.
func TestAppealWindowIsTwiceLowPing(t *testing.T) {
	for _, tc := range []struct {
		lowPing float64
		want    time.Duration
	}{{0, 100 * time.Millisecond}, {80, 160 * time.Millisecond}} {
		p, err := New(Config{Name: "alc", LowPingMS: tc.lowPing})
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Traits().AppealWindow; got != tc.want {
			t.Errorf("low ping %v ms: window %v, want %v", tc.lowPing, got, tc.want)
		}
	}
}

// TestNamesListsTheRegistry: Policies.Names gives every policy New
// accepts, in the order help lists them, and New names them when
// refusing another.
func TestNamesListsTheRegistry(t *testing.T) {
	names := Policies.Names()
	if !slices.Equal(names, []string{"none", "tlc", "clc", "alc", "alc-predict"}) {
		t.Fatalf("Policies.Names() = %v", names)
	}
	for _, n := range names {
		if p, err := New(Config{Name: n}); err != nil || p.Name() != n {
			t.Errorf("New(%q) = %v, %v", n, p, err)
		}
	}
	if _, err := New(Config{Name: "psychic"}); err == nil || !strings.Contains(err.Error(), `unknown policy "psychic", want none, tlc, clc, alc or alc-predict`) {
		t.Errorf("unknown policy: error %v, want one listing %v", err, names)
	}
}
