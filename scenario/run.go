package scenario

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/internal/msec"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/netem"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/shooter"
	"github.com/lagkit/lagkit/shooter/mode"
	"github.com/lagkit/lagkit/sim"
	"github.com/lagkit/lagkit/wire"
)

// Shot is the outcome of one shot (one pellet) of a scenario.
type Shot struct {
	// N numbers the shots in the order the server resolved them, from 1.
	N       int     `json:"n"`
	TimeMS  float64 `json:"time_ms"` // server time resolved
	Shooter string  `json:"shooter"`
	Victim  string  `json:"victim"` // "" for a miss
	Part    string  `json:"part"`
	Policy  string  `json:"policy"`
	// Hit is the server's (rewound, if the policy rewinds) test;
	// Registered whether damage was applied.
	Hit        bool `json:"hit"`
	Registered bool `json:"registered"`
	// SBC is SBC detection on the victim's client when the hit reached it.
	SBC       bool    `json:"sbc"`
	Appeal    string  `json:"appeal"`
	RewindMS  float64 `json:"rewind_ms"`
	RollbackM float64 `json:"rollback_m"`
	// ConfirmDelayMS is the time from the shooter's command to the
	// server's word on the hit reaching the shooter (null: never told,
	// as for a miss).
	ConfirmDelayMS *float64 `json:"confirm_delay_ms"`
}

// Result is the outcome of a scenario run.
type Result struct {
	Scenario string `json:"scenario"`
	Policy   string `json:"policy"`
	Shots    []Shot `json:"shots"`
}

// Run plays the scenario under its own policy, or under policy when
// policy.Name is set.
func (f *File) Run(policy lagcomp.Config) (*Result, error) {
	if policy.Name == "" {
		policy = f.Policy
	}
	if _, err := lagcomp.New(policy); err != nil {
		return nil, err
	}
	tick := game.TickDuration(f.TickRate)
	scripts := make([]*script, len(f.Players))
	players := make([]sim.PlayerConfig, len(f.Players))
	for i, p := range f.Players {
		oneWay := netem.Config{
			Latency: msec.Duration(p.RTTms / 2), Jitter: msec.Duration(p.JitterMS), Loss: p.Loss,
		}
		mode := client.AppealHonest
		switch p.Appeals {
		case "deny":
			mode = client.AppealDenyAll
		case "silent":
			mode = client.AppealSilent
		}
		scripts[i] = newScript(f, i)
		cc := client.Config{Name: p.Name, Appeals: mode}
		if p.InterpMS != nil {
			cc.InterpDelay = msec.Duration(*p.InterpMS)
		}
		players[i] = sim.PlayerConfig{
			Client: cc,
			Up:     oneWay, Down: oneWay,
			Brain: scripts[i],
			// Each player ticks at its own phase against the server.
			Phase: time.Duration(i+1) * tick / time.Duration(len(f.Players)+1),
		}
	}
	scfg := server.Config{
		Map: f.world, TickRate: f.TickRate, MaxClients: len(f.Players), Seed: f.Seed, Policy: policy,
		Rules: shooter.Rules(mode.Config{}),
	}
	if err := sim.ArmShooter(&scfg, players, nil); err != nil {
		return nil, err
	}
	d, err := sim.NewDriver(scfg, players, f.Seed)
	if err != nil {
		return nil, err
	}
	for _, s := range scripts {
		s.driver = d
	}
	obs := &observer{f: f, placed: make([]bool, len(f.Players)), hits: map[shotKey]client.HitReport{}, confirms: map[shotKey]client.ConfirmReport{}}
	d.Run(f.Duration.Duration, obs)

	res := &Result{Scenario: f.Name, Policy: policy.Name}
	name := func(peerSlot int) string {
		for i, p := range d.Players {
			if p.Client.Phase() != client.Idle && p.Client.ID() == peerSlot {
				return f.Players[i].Name
			}
		}
		return fmt.Sprintf("slot%d", peerSlot)
	}
	for i, r := range obs.records {
		s := Shot{
			N: i + 1, TimeMS: float64(r.Time) / float64(time.Millisecond),
			Shooter: name(r.Shooter), Policy: r.Policy,
			Hit: r.Hit, Registered: r.Registered, Appeal: "none",
			RewindMS: r.RewindMS, RollbackM: r.RollbackM,
		}
		if r.Victim >= 0 {
			s.Victim, s.Part = name(r.Victim), r.Part.String()
			key := shotKey{r.Shooter, r.ShotTick, r.Victim}
			if h, ok := obs.hits[key]; ok {
				s.SBC = h.SBC
			}
			if c, ok := obs.confirms[key]; ok {
				v := float64(c.Delay) / float64(time.Millisecond)
				s.ConfirmDelayMS = &v
			}
		}
		if r.Appealed {
			s.Appeal = r.Outcome.String()
		}
		res.Shots = append(res.Shots, s)
	}
	return res, nil
}

// Check compares a result with the file's expectations for its policy and
// returns one line per mismatch.
func (f *File) Check(r *Result) []string {
	var bad []string
	for _, e := range f.Expect {
		if e.Policy != r.Policy {
			continue
		}
		if e.Shots != nil && len(r.Shots) != *e.Shots {
			bad = append(bad, fmt.Sprintf("%s: %d shots fired, want %d", r.Policy, len(r.Shots), *e.Shots))
		}
		if e.Shot == 0 {
			continue
		}
		if e.Shot > len(r.Shots) {
			bad = append(bad, fmt.Sprintf("%s: shot %d: not fired (%d shots)", r.Policy, e.Shot, len(r.Shots)))
			continue
		}
		s := r.Shots[e.Shot-1]
		mismatch := func(field string, got, want any) {
			bad = append(bad, fmt.Sprintf("%s: shot %d: %s is %v, want %v", r.Policy, e.Shot, field, got, want))
		}
		if e.Victim != nil && s.Victim != *e.Victim {
			mismatch("victim", fmt.Sprintf("%q", s.Victim), fmt.Sprintf("%q", *e.Victim))
		}
		if e.Hit != nil && s.Hit != *e.Hit {
			mismatch("hit", s.Hit, *e.Hit)
		}
		if e.Registered != nil && s.Registered != *e.Registered {
			mismatch("registered", s.Registered, *e.Registered)
		}
		if e.SBC != nil && s.SBC != *e.SBC {
			mismatch("sbc", s.SBC, *e.SBC)
		}
		if e.Appeal != nil && s.Appeal != *e.Appeal {
			mismatch("appeal", s.Appeal, *e.Appeal)
		}
		within := func(field string, got float64, want *[2]float64) {
			if want != nil && !(got >= want[0] && got <= want[1]) {
				bad = append(bad, fmt.Sprintf("%s: shot %d: %s is %.4g, want %v to %v", r.Policy, e.Shot, field, got, want[0], want[1]))
			}
		}
		within("rewind_ms", s.RewindMS, e.RewindMS)
		within("rollback_m", s.RollbackM, e.RollbackM)
	}
	return bad
}

// Policies returns the policies the file has expectations for, in the
// order lagcomp.Policies lists them.
func (f *File) Policies() []string {
	var out []string
	for _, name := range lagcomp.Policies.Names() {
		if slices.ContainsFunc(f.Expect, func(e Expect) bool { return e.Policy == name }) {
			out = append(out, name)
		}
	}
	return out
}

// shotKey joins what the server, the victim's client and the shooter's
// client each know of a hit.
type shotKey struct {
	shooter  int
	shotTick uint32
	victim   int
}

// observer places the players as they join and collects the shot
// records and the clients' reports.
type observer struct {
	f        *File
	placed   []bool
	records  []server.ShotRecord
	hits     map[shotKey]client.HitReport
	confirms map[shotKey]client.ConfirmReport
}

func (o *observer) Delivered(_ time.Duration, _ int, p *sim.Player, rd *client.Ready) {
	c := p.Client
	for _, h := range rd.Hits {
		o.hits[shotKey{h.Shooter, h.ShotTick, c.ID()}] = h
	}
	for _, r := range rd.Confirms {
		if r.Outcome != wire.OutcomeDiscarded {
			o.confirms[shotKey{c.ID(), r.ShotTick, r.Victim}] = r
		}
	}
}

func (o *observer) Ticked(time.Duration, int, *sim.Player, *client.Ready) {}

func (o *observer) ServerTicked(_ time.Duration, s *server.Server) {
	for i, done := range o.placed {
		if done {
			continue
		}
		if id, ok := s.ClientByPeer(server.Peer(i)); ok {
			p := &o.f.Players[i]
			s.Place(id, vec(p.Pos), p.YawDeg*math.Pi/180)
			o.placed[i] = true
		}
	}
}

func (o *observer) ServerReady(_ time.Duration, _ *server.Server, r *server.Ready) {
	o.records = append(o.records, r.Shots...)
}

func vec(v [3]float64) geom.Vec3 { return geom.V(v[0], v[1], v[2]) }
