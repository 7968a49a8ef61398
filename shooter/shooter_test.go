package shooter_test

import (
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/internal/fixture"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/shooter"
	"github.com/lagkit/lagkit/shooter/mode"
	"github.com/lagkit/lagkit/world"
)

// TestCaptureTheFlag: capture the flag played through the server's
// rules seam: a player who touches the enemy flag carries it (marked in
// its state, logged), and touching its own flag at home captures it for
// its team and itself.
func TestCaptureTheFlag(t *testing.T) {
	m, err := world.Load("metro")
	if err != nil {
		t.Fatal(err)
	}
	s, err := server.New(server.Config{Map: m, MaxClients: 4, Rules: shooter.Rules(mode.Config{Mode: mode.CTF})})
	if err != nil {
		t.Fatal(err)
	}
	if s.Rules().Name() != "ctf" {
		t.Fatalf("rules %q, want ctf", s.Rules().Name())
	}
	a, err := fixture.Join(s, 0, 1, "a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fixture.Join(s, 0, 2, "b"); err != nil {
		t.Fatal(err)
	}
	mt := shooter.Match(s)
	info, _ := s.Client(a)
	var own, enemy mode.Flag
	for _, f := range mt.Flags {
		if f.Team == info.Team {
			own = f
		} else {
			enemy = f
		}
	}
	logged := func(rd *server.Ready, kind string) bool {
		for _, e := range rd.Log {
			if e.Kind == kind && e.Player == a {
				return true
			}
		}
		return false
	}
	s.Place(a, enemy.Home, 0)
	rd := s.Advance(s.NextTick())
	st, _, _ := s.PlayerState(a)
	if !st.Has(mode.FlagCarrier) || !logged(rd, "flag_taken") {
		t.Fatalf("on the enemy flag: carrier mark %v, flags %+v", st.Has(mode.FlagCarrier), mt.Flags)
	}
	s.Place(a, own.Home, 0)
	rd = s.Advance(s.NextTick())
	st, _, _ = s.PlayerState(a)
	if st.Has(mode.FlagCarrier) || !logged(rd, "flag_captured") {
		t.Fatalf("home with the flag: carrier mark %v, flags %+v", st.Has(mode.FlagCarrier), mt.Flags)
	}
	if ts := s.Rules().TeamScore(); ts[info.Team] != 1 || s.Rules().Score(a) != mode.CaptureScore || mt.Captures != 1 {
		t.Fatalf("after the capture: team scores %v, player score %d, captures %d", ts, s.Rules().Score(a), mt.Captures)
	}
}

// TestTimeWarpNeedsNoObjectives: the server asks the rules whether they
// run under time warp; the objective modes do not.
func TestTimeWarpNeedsNoObjectives(t *testing.T) {
	m, err := world.Load("metro")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []mode.Kind{mode.FFA, mode.TDM, mode.CTF, mode.DOM} {
		_, err := server.New(server.Config{
			Map: m, TimeWarp: 200 * time.Millisecond, Policy: lagcomp.Config{Name: "none"}, Rules: shooter.Rules(mode.Config{Mode: k}),
		})
		objectives := k == mode.CTF || k == mode.DOM
		if objectives != (err != nil) || objectives && !strings.Contains(err.Error(), "ffa and tdm") {
			t.Errorf("mode %s under time warp: %v", k, err)
		}
	}
}

// TestAdjustConfig: the adjustments are made from the shooter's
// configurations, none for none, and a bad one is the server's error.
func TestAdjustConfig(t *testing.T) {
	m := world.Field()
	for _, tc := range []struct {
		name    string
		adjust  func(server.RulesEnv) ([]server.Adjustment, error)
		n       int
		wantErr string
	}{
		{"none", shooter.Adjust(scalingCfg("none"), assistCfg("none")), 0, ""},
		{"scaling", shooter.Adjust(scalingCfg("fixed"), assistCfg("none")), 1, ""},
		{"both", shooter.Adjust(scalingCfg("linear"), assistCfg("magnetism")), 2, ""},
		{"bad", shooter.Adjust(scalingCfg("huge"), assistCfg("none")), 0, "scaling"},
	} {
		adj, err := tc.adjust(server.RulesEnv{Map: m})
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: error %v, want one naming %s", tc.name, err, tc.wantErr)
			}
			if _, err := server.New(server.Config{Map: m, Adjust: tc.adjust}); err == nil {
				t.Errorf("%s: the server took it", tc.name)
			}
			continue
		}
		if err != nil || len(adj) != tc.n {
			t.Errorf("%s: %d adjustments, %v; want %d", tc.name, len(adj), err, tc.n)
		}
	}
}
