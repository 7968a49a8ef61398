package realtime

import (
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/shooter/mode"
	"github.com/lagkit/lagkit/world"
)

// View is a match seen from above by a spectator: every player where the
// server has it now, with its hitboxes, and the latest hits with the
// hitboxes the server tested at the rewound time (the rewind view).
// Positions are in the map's metres with +Z up; angles are radians.
type View struct {
	Match string  `json:"match"`
	Map   string  `json:"map"`
	Mode  string  `json:"mode"`
	Tick  uint32  `json:"tick"`
	TimeS float64 `json:"time_s"` // server time of Tick
	Score [2]int  `json:"score"`
	// TimeLeftS is what remains of a timed match (0: untimed).
	TimeLeftS float64      `json:"time_left_s"`
	Players   []ViewPlayer `json:"players"`
	// Rewinds are the hits registered after the View's since, oldest
	// first, at most the last MaxViewRewinds.
	Rewinds []ViewRewind `json:"rewinds"`
	// Shots are the hitscan shots judged after Spectate's shotsSince,
	// oldest first, at most the last MaxViewShots (none from View).
	Shots []ViewShot `json:"shots,omitempty"`
	// DelayS is how far in the past a delayed Spectate shows the match
	// (0: no delay); StartsInS, while the match is younger than that,
	// how long until it shows anything.
	DelayS    float64 `json:"delay_s,omitempty"`
	StartsInS float64 `json:"starts_in_s,omitempty"`
}

// ViewPlayer is one player as the server has it.
type ViewPlayer struct {
	Seat      int             `json:"seat"`
	Name      string          `json:"name"`
	Bot       bool            `json:"bot"`
	Team      int             `json:"team"`
	Pos       [3]float64      `json:"pos"`
	Yaw       float64         `json:"yaw"`
	Pitch     float64         `json:"pitch"`
	Health    int             `json:"health"`
	Crouched  bool            `json:"crouched"`
	Dead      bool            `json:"dead"`
	Protected bool            `json:"protected"`
	Carrier   bool            `json:"carrier"`
	Kills     int             `json:"kills"`
	Deaths    int             `json:"deaths"`
	RTTms     float64         `json:"rtt_ms"`
	Parts     []game.PartView `json:"parts"`
}

// ViewRewind is one registered hit: the victim's hitboxes at the time
// the server tested (Tested, rewound when RewindMs > 0) beside where the
// victim was when the shot was judged (Now), and the shooter's eye.
type ViewRewind struct {
	Seq       uint64          `json:"seq"`
	TimeS     float64         `json:"time_s"`
	Shooter   int             `json:"shooter"`
	Victim    int             `json:"victim"`
	Part      string          `json:"part"`
	Outcome   string          `json:"outcome"`
	RewindMs  float64         `json:"rewind_ms"`
	RollbackM float64         `json:"rollback_m"`
	Eye       [3]float64      `json:"eye"`
	Tested    []game.PartView `json:"tested"`
	Now       []game.PartView `json:"now"`
}

// MaxViewRewinds is how many recent hits a match keeps for its View.
const MaxViewRewinds = 64

// viewRewinds is a match's ring of recent hits, owned by its goroutine.
type viewRewinds struct {
	ring [MaxViewRewinds]ViewRewind
	seq  uint64 // hits kept so far; the newest has Seq seq
}

// View describes the match now for a spectator, with the hits after
// since (a ViewRewind.Seq; 0 for every hit kept).
func (m *Match) View(since uint64) (View, error) {
	var v View
	err := m.do(func() { v = m.view(since) })
	return v, err
}

// MapFile returns the match's map.
func (m *Match) MapFile() *world.Map { return m.r.server.Map }

func (m *Match) view(since uint64) View {
	cfg := m.srv.Config()
	v := View{
		Match: m.id, Map: cfg.Map.Name, Mode: m.r.cfg.Mode, Tick: m.srv.Tick(), TimeS: m.srv.Time().Seconds(),
		Score: m.srv.Rules().TeamScore(), Players: []ViewPlayer{}, Rewinds: []ViewRewind{},
	}
	if d := time.Duration(m.r.cfg.Duration); d > 0 {
		v.TimeLeftS = max(0, (d - m.srv.Time()).Seconds())
	}
	for seat := range m.srv.MaxClients() {
		ci, ok := m.srv.Client(seat)
		if !ok {
			continue
		}
		st := ci.State
		p := ViewPlayer{
			Seat: seat, Name: ci.Name, Team: ci.Team, Pos: vec3(st.Pos),
			Yaw: game.AngleToRad(int32(st.Yaw)), Pitch: game.AngleToRad(int32(st.Pitch)), Health: int(st.Health),
			Crouched: st.Has(game.FlagCrouched), Dead: st.Has(game.FlagDead), Protected: st.Has(game.FlagProtected),
			Carrier: st.Has(mode.FlagCarrier), Kills: ci.Kills, Deaths: ci.Deaths,
			RTTms: float64(ci.RTT) / float64(time.Millisecond), Parts: game.PartViews(st, cfg.Movement),
		}
		if pr, ok := m.peers[ci.Peer]; ok {
			p.Bot = pr.bot
		}
		v.Players = append(v.Players, p)
	}
	r := &m.rewinds
	for seq := max(since, r.seq-min(r.seq, MaxViewRewinds)) + 1; seq <= r.seq; seq++ {
		v.Rewinds = append(v.Rewinds, r.ring[seq%MaxViewRewinds])
	}
	return v
}

// keepRewind keeps a registered hitscan hit for the View, with the
// victim's pose at the tested time from the lag compensation history
// (which still holds it: the match keeps hits as its ticks log them).
func (m *Match) keepRewind(rec *server.ShotRecord) {
	if !rec.Registered || rec.Victim < 0 || rec.Projectile {
		return
	}
	victim, ok := m.srv.Client(rec.Victim)
	if !ok {
		return
	}
	cfg := m.srv.Config()
	h := m.srv.History()
	tested, ok := h.At(rec.Victim, rec.Tested)
	if !ok {
		tested = victim.State
	}
	now, ok := h.At(rec.Victim, rec.Time)
	if !ok {
		now = victim.State
	}
	var eye [3]float64
	if shooter, ok := h.At(rec.Shooter, rec.Time); ok {
		eye = vec3(game.EyePos(shooter, cfg.Movement))
	} else if sc, ok := m.srv.Client(rec.Shooter); ok {
		eye = vec3(game.EyePos(sc.State, cfg.Movement))
	}
	r := &m.rewinds
	r.seq++
	r.ring[r.seq%MaxViewRewinds] = ViewRewind{
		Seq: r.seq, TimeS: rec.Time.Seconds(), Shooter: rec.Shooter, Victim: rec.Victim,
		Part: rec.Part.String(), Outcome: rec.Outcome.String(), RewindMs: rec.RewindMS,
		RollbackM: rec.RollbackM, Eye: eye, Tested: game.PartViews(tested, cfg.Movement), Now: game.PartViews(now, cfg.Movement),
	}
}

func vec3(v geom.Vec3) [3]float64 { return [3]float64{v.X, v.Y, v.Z} }
