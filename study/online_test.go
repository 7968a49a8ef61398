package study

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/study/lobby"
)

// TestOnlineLobbyConfig: an online schedule's lobby seats its people's
// seats, balances the Latin square's four groups, and knows the round
// trip each group's rounds target, in each group's order.
func TestOnlineLobbyConfig(t *testing.T) {
	s, err := Load("../presets/online.toml")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := s.LobbyConfig([]byte("0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Seats != 4 || cfg.MaxWait != 2*time.Minute || cfg.Admission.MaxBaseRTT != 150*time.Millisecond ||
		!cfg.Admission.PointerLock || cfg.Admission.OverTarget != lobby.OverRefuse || cfg.Study != "online-fairness" {
		t.Fatalf("lobby %+v", cfg)
	}
	if len(cfg.Groups) != 4 {
		t.Fatalf("%d groups, want the Latin square's 4", len(cfg.Groups))
	}
	ms := func(v ...int) []time.Duration {
		var out []time.Duration
		for _, x := range v {
			out = append(out, time.Duration(x)*time.Millisecond)
		}
		return out
	}
	for g, want := range [][]time.Duration{ms(80, 80, 200, 200), ms(80, 200, 80, 200), ms(200, 200, 80, 80), ms(200, 80, 200, 80)} {
		if !slices.Equal(cfg.Groups[g].TargetRTT, want) {
			t.Errorf("group %d (%s) targets %v, want %v", g, cfg.Groups[g].Name, cfg.Groups[g].TargetRTT, want)
		}
	}
	if _, err := lobby.New(cfg); err != nil {
		t.Fatalf("the lobby refuses the schedule's config: %v", err)
	}
	// The schedule itself stays at its group.
	if s.Group() != 0 || s.Plans()[1].Technique.Name != "alc" {
		t.Fatalf("LobbyConfig moved the schedule to group %d", s.Group())
	}
	var b strings.Builder
	s.Summary().WriteText(&b)
	for _, want := range []string{"online: a lobby seats 4 people a match as they arrive (join links carry ?PROLIFIC_PID=, STUDY_ID, SESSION_ID), bots take the empty seats after 2m0s",
		"a round trip above a round's target: refuse", "group 3: tlc / 200 ms round trip, tlc / 80 ms round trip, alc / 200 ms round trip, alc / 80 ms round trip; target round trips (ms) by round: 200 80 200 80"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
	if _, err := cb2x2Schedule(t).LobbyConfig(nil); err == nil || !strings.Contains(err.Error(), "no [online] table") {
		t.Errorf("a lab schedule's lobby: %v", err)
	}
}

func cb2x2Schedule(t *testing.T) *Schedule {
	s, err := Parse("cb2x2.toml", []byte(cb2x2))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestOnlineChecked(t *testing.T) {
	base := cb2x2 + "\n[online]\n"
	for _, c := range []struct{ add, want string }{
		{`min_people = 3`, "online.min_people: 3, want 1 to the 2 seats for people"},
		{`max_wait = "2h"`, "online.max_wait: 2h0m0s, want 0 to 1h"},
		{`id_param = "a b"`, `online.id_param: "a b", want a query parameter's name`},
		{`completion_url = "ftp://x/{code}"`, `online.completion_url: "ftp://x/{code}", want an http or https URL`},
		{`completion_url = "https://x/done"`, `online.completion_url: "https://x/done" has no {code}`},
		{"[online.admission]\nover_target = \"maybe\"", `online.admission.over_target: "maybe", want refuse or restrict`},
		{"[online.admission]\nmax_base_rtt_ms = -1", "online.admission.max_base_rtt_ms: -1, want 0 to 5000"},
		{`on_server_lost = "retry"`, `online.on_server_lost: "retry", want "requeue" or "finish"`},
		{`on_dropout = "pay"`, `online.on_dropout: "pay", want "no-code" or "code"`},
		{`rejoin = "100ms"`, "online.rejoin: 100ms, want 1s to 10m0s"},
		{`rejoin = "1h"`, "online.rejoin: 1h0m0s, want 1s to 10m0s"},
	} {
		_, err := Parse("online.toml", []byte(base+c.add+"\n"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.add, err, c.want)
		}
	}
	fixed := strings.Replace(cb2x2, "[[seat]]\ncount = 2", "[[seat]]\ncode = \"P1\"\n[[seat]]", 1) + "\n[online]\n"
	if _, err := Parse("online.toml", []byte(fixed)); err == nil || !strings.Contains(err.Error(), `seat 0 has a fixed code "P1"`) {
		t.Errorf("a fixed code: %v", err)
	}
	s, err := Parse("online.toml", []byte(base))
	if err != nil || s.Online.OnServerLost != LostRequeue || s.Online.OnDropout != DropoutNoCode || time.Duration(s.Online.Rejoin) != DefaultRejoin {
		t.Errorf("defaults: %+v, %v", s.Online, err)
	}
	random := strings.Replace(base, `design = "latin"`, `design = "random"`, 1)
	if _, err := Parse("online.toml", []byte(random)); err == nil || !strings.Contains(err.Error(), "takes design latin") {
		t.Errorf("a random design: %v", err)
	}
}
