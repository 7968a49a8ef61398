package study

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/lagkit/lagkit/study/lobby"
)

// Online is a schedule's [online] table: how an online study's lobby
// groups participants who arrive over hours into matches of the
// schedule's seats (package lobby). Each match plays the schedule as
// one session of the study, its counterbalancing group chosen by the
// lobby to keep the groups balanced; the seats its people leave empty
// are the bots'.
type Online struct {
	// MaxWait is the longest a participant waits for a full match
	// before one starts with bots (default lobby.DefaultMaxWait);
	// MinPeople is how many people such a match needs (default 1).
	MaxWait   Duration `toml:"max_wait"`
	MinPeople int      `toml:"min_people"`
	// PrescreenTimeout is how long a participant has from arrival to
	// pass the prescreen (default lobby.DefaultPrescreenTimeout).
	PrescreenTimeout Duration `toml:"prescreen_timeout"`
	// IDParam, StudyParam and SessionParam are the join link's query
	// parameters carrying the recruitment platform's participant, study
	// and session ids (defaults Prolific's: PROLIFIC_PID, STUDY_ID,
	// SESSION_ID). A link without a participant id is refused.
	IDParam      string `toml:"id_param"`
	StudyParam   string `toml:"study_param"`
	SessionParam string `toml:"session_param"`
	// CompletionURL is where a participant who completed the study is
	// sent, "{code}" in it replaced by their completion code (absent:
	// the code is shown to be copied).
	CompletionURL string `toml:"completion_url"`
	// Admission is the prescreen's rules.
	Admission OnlineAdmission `toml:"admission"`
	// Rejoin is how long a participant's page may be away from a
	// running session (neither in the round's match nor asking the
	// study's status) before a bot takes the seat for the rest of the
	// session (default DefaultRejoin).
	Rejoin Duration `toml:"rejoin"`
	// OnDropout is what a participant who left mid-match gets on coming
	// back: "no-code" (the default) nothing but the page saying a bot
	// took the seat, "code" the completion code for the part played.
	// Either way the id may not join again.
	OnDropout string `toml:"on_dropout"`
	// OnServerLost is what happens to a match's people when its game
	// server dies mid-round: "requeue" (the default) puts them back in
	// the lobby's queue, first in line, for a new match of their
	// counterbalancing group; "finish" ends their part with the
	// completion code.
	OnServerLost string `toml:"on_server_lost"`
}

// Online's OnDropout and OnServerLost values, and the default rejoin
// grace.
const (
	DropoutNoCode = "no-code"
	DropoutCode   = "code"
	LostRequeue   = "requeue"
	LostFinish    = "finish"
	DefaultRejoin = 30 * time.Second
	minRejoin     = time.Second
	maxRejoin     = 10 * time.Minute
)

// OnlineAdmission is the [online.admission] table.
type OnlineAdmission struct {
	// MinFPS and MinRefreshHz are the least frame and refresh rate a
	// browser must show; PointerLock requires it to grant pointer lock.
	MinFPS       float64 `toml:"min_fps"`
	MinRefreshHz float64 `toml:"min_refresh_hz"`
	PointerLock  bool    `toml:"pointer_lock"`
	// MaxBaseRTTMS is the largest round trip to the game servers a
	// participant may have (0: any).
	MaxBaseRTTMS float64 `toml:"max_base_rtt_ms"`
	// OverTarget is what happens to a participant whose own round trip
	// is above a round's target_rtt_ms: "refuse" (the default) at the
	// prescreen, or "restrict" them to the groups whose targets are all
	// above it.
	OverTarget string `toml:"over_target"`
}

var paramPattern = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,31}$`)

// checkOnline checks the [online] table and fills in its defaults.
func (s *Schedule) checkOnline() *problem {
	o := s.Online
	if o == nil {
		return nil
	}
	people := 0
	for _, st := range s.seats {
		if !st.Bot {
			people++
		}
		if st.Code != "" {
			return fail("online", "seat %d has a fixed code %q: an online study's lobby seats whoever arrives", st.Index, st.Code)
		}
	}
	o.IDParam = cmpOr(o.IDParam, "PROLIFIC_PID")
	o.StudyParam = cmpOr(o.StudyParam, "STUDY_ID")
	o.SessionParam = cmpOr(o.SessionParam, "SESSION_ID")
	a := &o.Admission
	a.OverTarget = cmpOr(a.OverTarget, lobby.OverRefuse)
	o.OnDropout = cmpOr(o.OnDropout, DropoutNoCode)
	o.OnServerLost = cmpOr(o.OnServerLost, LostRequeue)
	if o.Rejoin == 0 {
		o.Rejoin = Duration(DefaultRejoin)
	}
	switch {
	case time.Duration(o.Rejoin) < minRejoin || time.Duration(o.Rejoin) > maxRejoin:
		return fail("online.rejoin", "%v, want %v to %v", time.Duration(o.Rejoin), minRejoin, maxRejoin)
	case o.OnDropout != DropoutNoCode && o.OnDropout != DropoutCode:
		return fail("online.on_dropout", "%q, want %q or %q", o.OnDropout, DropoutNoCode, DropoutCode)
	case o.OnServerLost != LostRequeue && o.OnServerLost != LostFinish:
		return fail("online.on_server_lost", "%q, want %q or %q", o.OnServerLost, LostRequeue, LostFinish)
	}
	switch {
	case people == 0:
		return fail("online", "every seat is a bot's: an online study needs seats for people")
	case o.MinPeople < 0 || o.MinPeople > people:
		return fail("online.min_people", "%d, want 1 to the %d seats for people", o.MinPeople, people)
	case o.MaxWait < 0 || time.Duration(o.MaxWait) > time.Hour:
		return fail("online.max_wait", "%v, want 0 to 1h", time.Duration(o.MaxWait))
	case o.PrescreenTimeout < 0 || time.Duration(o.PrescreenTimeout) > time.Hour:
		return fail("online.prescreen_timeout", "%v, want 0 to 1h", time.Duration(o.PrescreenTimeout))
	case !paramPattern.MatchString(o.IDParam):
		return fail("online.id_param", "%q, want a query parameter's name", o.IDParam)
	case !paramPattern.MatchString(o.StudyParam):
		return fail("online.study_param", "%q, want a query parameter's name", o.StudyParam)
	case !paramPattern.MatchString(o.SessionParam):
		return fail("online.session_param", "%q, want a query parameter's name", o.SessionParam)
	case !(a.MinFPS >= 0 && a.MinFPS <= 1000):
		return fail("online.admission.min_fps", "%v, want 0 to 1000", a.MinFPS)
	case !(a.MinRefreshHz >= 0 && a.MinRefreshHz <= 1000):
		return fail("online.admission.min_refresh_hz", "%v, want 0 to 1000", a.MinRefreshHz)
	case !(a.MaxBaseRTTMS >= 0 && a.MaxBaseRTTMS <= 5000):
		return fail("online.admission.max_base_rtt_ms", "%v, want 0 to 5000", a.MaxBaseRTTMS)
	case a.OverTarget != lobby.OverRefuse && a.OverTarget != lobby.OverRestrict:
		return fail("online.admission.over_target", "%q, want %s or %s", a.OverTarget, lobby.OverRefuse, lobby.OverRestrict)
	}
	if o.CompletionURL != "" {
		u, err := url.Parse(o.CompletionURL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return fail("online.completion_url", "%q, want an http or https URL", o.CompletionURL)
		}
		if !strings.Contains(o.CompletionURL, "{code}") {
			return fail("online.completion_url", "%q has no {code}: the platform checks the completion code there", o.CompletionURL)
		}
	}
	if c := s.Counterbalance; c != nil && c.Design == DesignRandom {
		return fail("online", "counterbalance design random: the lobby balances a finite set of groups, so an online study takes design latin")
	}
	return nil
}

func cmpOr(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// LobbyConfig returns the lobby of an online schedule: its matches of
// the seats for people, its groups (the counterbalancing design's rows,
// or one) with the round trip each round targets, its admission rules,
// and secret for the completion codes.
func (s *Schedule) LobbyConfig(secret []byte) (lobby.Config, error) {
	o := s.Online
	if o == nil {
		return lobby.Config{}, fmt.Errorf("%s: no [online] table: the schedule is for a lab", s.path)
	}
	var people []int
	for _, st := range s.seats {
		if !st.Bot {
			people = append(people, st.Index)
		}
	}
	groups := 1
	if c := s.Counterbalance; c != nil {
		groups = c.Groups()
	}
	cfg := lobby.Config{
		Study: s.Name, Seats: len(people), MinPeople: o.MinPeople, MaxWait: time.Duration(o.MaxWait),
		PrescreenTimeout: time.Duration(o.PrescreenTimeout), Secret: secret, DropoutCode: o.OnDropout == DropoutCode,
		Admission: lobby.Admission{
			MinFPS: o.Admission.MinFPS, MinRefreshHz: o.Admission.MinRefreshHz, PointerLock: o.Admission.PointerLock,
			MaxBaseRTT: msDuration(o.Admission.MaxBaseRTTMS), OverTarget: o.Admission.OverTarget,
		},
	}
	for g := range groups {
		// Each group's rounds, from a copy of the schedule set to it.
		c, err := Parse(s.path, s.text)
		if err != nil {
			return lobby.Config{}, err
		}
		if err := c.SetGroup(g); err != nil {
			return lobby.Config{}, err
		}
		grp := lobby.Group{Name: fmt.Sprintf("group %d", g)}
		for _, p := range c.plans {
			// The lowest target over the people's seats: a participant
			// may take any of them.
			var target time.Duration
			for _, seat := range people {
				if t := msDuration(p.Links[seat].TargetRTTMS); t > 0 && (target == 0 || t < target) {
					target = t
				}
			}
			grp.TargetRTT = append(grp.TargetRTT, target)
		}
		if c.Counterbalance != nil {
			grp.Name += ": " + strings.Join(slices.Compact(c.SeatOrders()[0]), ", ")
		}
		cfg.Groups = append(cfg.Groups, grp)
	}
	return cfg, nil
}

func msDuration(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }
