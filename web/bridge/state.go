package bridge

import (
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/shooter/mode"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/wire"
)

// State is what the page draws at one instant. Positions are in the map's
// metres with +Z up; angles are radians.
type State struct {
	// Phase is idle, connecting, connected or closed; Reason says why a
	// closed session closed.
	Phase  string `json:"phase"`
	Reason string `json:"reason,omitempty"`
	// Map is the session's map; ServerMap the map the server plays when
	// it differs (the session closed: load it and start again).
	Map       string `json:"map"`
	ServerMap string `json:"serverMap,omitempty"`
	ID        int    `json:"id"`
	Team      int    `json:"team"`
	// Tick is the server tick at the view's instant (0 until connected).
	Tick uint32 `json:"tick"`
	Mode string `json:"mode,omitempty"`
	FOV  int    `json:"fov,omitempty"`
	// Minimap, PingColumn and HitIndicator are what the server mandates:
	// every player on the minimap (else teammates only), pings on the
	// scoreboard, and the direction hits come from.
	Minimap      bool `json:"minimap"`
	PingColumn   bool `json:"pingColumn"`
	HitIndicator bool `json:"hitIndicator"`
	// Paused reports that the server paused the game: nobody moves.
	Paused bool `json:"paused"`
	// Prediction reports whether the local player is predicted (the
	// server may turn it off), Display the display mode remote players
	// are drawn with (the server's mandate or the page's own).
	Prediction bool   `json:"prediction"`
	Display    string `json:"display"`
	// Feedback is what the server mandates the player be shown of the
	// network (client.Feedbacks), nil when it mandates nothing.
	Feedback *client.Shown `json:"feedback,omitempty"`
	// Self is the local player as predicted, drawn where DisplayPos says
	// (corrections smoothed out); Eye is its view origin.
	Self     Player     `json:"self"`
	Eye      [3]float64 `json:"eye"`
	Weapon   string     `json:"weapon"`
	Ammo     int        `json:"ammo"`
	Magazine int        `json:"magazine"`
	// Players are the remote players as the display mode draws them at
	// the view time.
	Players []Player `json:"players"`
	// Events are what happened since the last State call, oldest first.
	Events []Event `json:"events"`
	Net    Net     `json:"net"`
	Score  Score   `json:"score"`
	// Rewinds, Tracers and Explosions are what arrived since the last
	// State call; Projectiles are those in flight now. Killer is who
	// killed the local player last (-1: nobody yet): the death camera
	// looks at it.
	Rewinds     []Rewind     `json:"rewinds"`
	Tracers     []Tracer     `json:"tracers"`
	Explosions  []Explosion  `json:"explosions"`
	Projectiles []Projectile `json:"projectiles"`
	Killer      int          `json:"killer"`
	// Reports counts the SBC reports sent.
	Reports int `json:"reports"`
	// Loadout names the weapons of the loadout, by slot (keys 1, 2, ...).
	Loadout []string `json:"loadout"`
	// Place is the local player's newest placement (spawn, respawn,
	// teleport): the view the page takes when its count changes.
	Place Placement `json:"place"`
	// RespawnMs is the server's delay from death to respawn (its
	// default: the server does not send it).
	RespawnMs float64 `json:"respawnMs"`
}

// Player is one player as drawn.
type Player struct {
	ID    int        `json:"id"`
	Team  int        `json:"team"`
	Pos   [3]float64 `json:"pos"`
	Yaw   float64    `json:"yaw"`
	Pitch float64    `json:"pitch"`
	// Health is known for the local player only: snapshots do not carry
	// other players' health (-1).
	Health    int  `json:"health"`
	Crouched  bool `json:"crouched"`
	Dead      bool `json:"dead"`
	Protected bool `json:"protected"`
	Reloading bool `json:"reloading"`
	Carrier   bool `json:"carrier"`
	// Parts are the hitboxes game.Hitboxes gives for this pose: what the
	// server's hit registration tests, so what the page draws is what
	// shots hit.
	Parts []game.PartView `json:"parts"`
}

// Event is one thing that happened: "hit" (the local player's shot as the
// server registered it; Other is the victim), "hurt" (a hit on the local
// player; Other is the shooter) or "kill" (Other died, Killer killed them,
// as the server's kill event says; -1 for a death by no one).
type Event struct {
	Kind    string `json:"kind"`
	Other   int    `json:"other"`
	Killer  int    `json:"killer"`
	Part    string `json:"part,omitempty"`
	Damage  int    `json:"damage,omitempty"`
	Outcome string `json:"outcome,omitempty"`
	// SBC reports a hurt the client found behind cover when it arrived.
	SBC bool `json:"sbc,omitempty"`
}

// Net is the net graph: round trip, snapshots in the last second, and
// prediction corrections (reconciliations that moved the present by more
// than a millimetre, not counting spawns and teleports; 0 on a clean link,
// since the client runs the server's movement code).
type Net struct {
	RTTms        float64 `json:"rttMs"`
	TickRate     int     `json:"tickRate"`
	SnapshotRate int     `json:"snapshotRate"`
	Snapshots    int     `json:"snapshots"`
	Corrections  int     `json:"corrections"`
	Malformed    int     `json:"malformed"`
	Commands     int     `json:"commands"`
	// JitterMs is the mean absolute deviation of RTTSamples; Loss the
	// share of snapshots missed, from gaps in their ticks.
	JitterMs float64 `json:"jitterMs"`
	Loss     float64 `json:"loss"`
	// BufferMs is how far the newest snapshot lies ahead of the view
	// time; ExtrapolatedMs how far the view time lies beyond it when the
	// buffer ran dry.
	BufferMs       float64 `json:"bufferMs"`
	ExtrapolatedMs float64 `json:"extrapolatedMs"`
	// BytesIn and BytesOut are the datagram bytes of the last second.
	BytesIn  int `json:"bytesIn"`
	BytesOut int `json:"bytesOut"`
	// PredictionErrorM is the latest prediction error: the distance
	// between where the client predicted itself for the newest command
	// the server executed and where the server put it.
	PredictionErrorM float64 `json:"predictionErrorM"`
	// InterpMs is the interpolation delay in force: how far behind the
	// server's present remote players are drawn.
	InterpMs float64 `json:"interpMs"`
	// RTTSamples are the latest round-trip estimates in ms, one per
	// snapshot, oldest first: the page's sparkline.
	RTTSamples []float64 `json:"rttSamples"`
	// Server is what the server measured over its last second (nil
	// until it says, and from a server whose driver does not time its
	// ticks).
	Server *ServerNet `json:"server,omitempty"`
}

// ServerNet is the server's side of the net graph (wire.ServerEvent):
// its longest tick and latest tick start of the last second, the
// one-way latency injected into this client's link up (to the server)
// and down, by network emulation (Emulated) and by the time delay
// technique (Held), the share of this client's commands lost on the way
// up, and the lag compensation policy in force.
type ServerNet struct {
	TickMs         float64 `json:"tickMs"`
	TickLateMs     float64 `json:"tickLateMs"`
	EmulatedUpMs   float64 `json:"emulatedUpMs"`
	EmulatedDownMs float64 `json:"emulatedDownMs"`
	HeldUpMs       float64 `json:"heldUpMs"`
	HeldDownMs     float64 `json:"heldDownMs"`
	LossOut        float64 `json:"lossOut"`
	Policy         string  `json:"policy"`
}

// serverNet converts a server event.
func serverNet(e wire.ServerEvent) *ServerNet {
	return &ServerNet{
		TickMs: ms(e.TickTime), TickLateMs: ms(e.TickLate), EmulatedUpMs: ms(e.EmulatedUp), EmulatedDownMs: ms(e.EmulatedDown),
		HeldUpMs: ms(e.HeldUp), HeldDownMs: ms(e.HeldDown), LossOut: float64(e.LossOut) / 1000, Policy: e.Policy,
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Score is the scoreboard's team scores and the local player's line.
type Score struct {
	Teams    [2]int  `json:"teams"`
	Kills    int     `json:"kills"`
	Deaths   int     `json:"deaths"`
	TimeLeft float64 `json:"timeLeft"` // seconds, 0: unlimited
	// Rows are every player's line, in slot order.
	Rows []ScoreRow `json:"rows"`
}

// ScoreRow is one player's scoreboard line; PingMs is what the server
// measured, shown when the server mandates the ping column.
type ScoreRow struct {
	// Name is what the server named the player (empty until it says).
	Name   string `json:"name"`
	ID     int    `json:"id"`
	Team   int    `json:"team"`
	Kills  int    `json:"kills"`
	Deaths int    `json:"deaths"`
	PingMs int    `json:"pingMs"`
}

var phaseNames = [...]string{client.Idle: "idle", client.Connecting: "connecting", client.Connected: "connected", client.Closed: "closed"}

// State returns what to draw at local time now, and forgets the events it
// reports.
func (s *Session) State(now time.Duration) State { return s.state(now, true) }

// Info is State without the remote players and the projectiles, which
// Pack gives the page every frame: the rare and structured rest (events,
// the net graph, the scoreboard, settings), handed over as JSON.
func (s *Session) Info(now time.Duration) State { return s.state(now, false) }

func (s *Session) state(now time.Duration, all bool) State {
	c := s.c
	st := State{Phase: phaseNames[c.Phase()], Reason: c.Reason(), Map: s.m.Name, ServerMap: c.ServerMap(), ID: -1}
	if c.Phase() == client.Connected {
		st.ID = c.ID()
	}
	if set, ok := c.Settings(); ok {
		st.Team, st.Mode, st.FOV = int(set.Team), set.Mode, int(set.FOVDeg)
		st.Minimap, st.PingColumn, st.HitIndicator = set.Minimap, set.PingColumn, set.HitIndicator
		st.Paused = set.Paused
	}
	st.Prediction, st.Display = c.Predicting(), c.DisplayName()
	if f, ok := c.Feedback(); ok {
		st.Feedback = &f
	}
	teams := s.teams()
	self := c.Predicted()
	st.Self = s.player(st.ID, st.Team, self)
	shown := self
	shown.Pos = c.DisplayPos()
	st.Self.Pos = vec(shown.Pos)
	st.Self.Parts = s.parts(shown)
	st.Eye = vec(game.EyePos(shown, &s.params))
	if int(weapon.ArmsOf(&self).Weapon) < len(s.weapons) {
		w := s.weapons[weapon.ArmsOf(&self).Weapon]
		st.Weapon, st.Magazine = w.Name, int(w.Magazine)
	}
	st.Ammo = int(weapon.ArmsOf(&self).Ammo)
	if td := c.TickDuration(); td > 0 && c.Phase() == client.Connected {
		st.Tick = uint32(max(0, c.ServerTime(now)/td))
	}
	if c.Phase() == client.Connected && all {
		view := c.ViewTime(now)
		s.ids = c.RemoteIDs(s.ids[:0])
		for _, id := range s.ids {
			if id == st.ID {
				continue
			}
			ps, ok := c.Remote(id, view)
			if !ok {
				continue
			}
			p := s.player(id, teams[id], ps)
			p.Health = -1
			st.Players = append(st.Players, p)
		}
	}
	cs := c.Stats()
	st.Net = Net{
		RTTms:        float64(c.RTT()) / float64(time.Millisecond),
		SnapshotRate: s.rate.perSecond(now),
		Snapshots:    cs.SnapshotsReceived,
		Corrections:  cs.Corrections - s.placed,
		Malformed:    cs.Malformed,
		Commands:     cs.CommandsSent,
		Loss:         s.graph.loss(),
		BytesIn:      s.graph.in.perSecond(now),
		BytesOut:     s.graph.out.perSecond(now),
		RTTSamples:   s.graph.samples(),
	}
	st.Net.JitterMs = jitter(st.Net.RTTSamples)
	if e, ok := c.ServerInfo(); ok {
		st.Net.Server = serverNet(e)
	}
	if c.Phase() == client.Connected {
		st.Net.BufferMs, st.Net.ExtrapolatedMs = s.graph.buffer(c.ViewTime(now), c.TickDuration())
		st.Net.InterpMs = float64(c.ServerTime(now)-c.ViewTime(now)) / float64(time.Millisecond)
	}
	if td := c.TickDuration(); td > 0 {
		st.Net.TickRate = int(time.Second / td)
	}
	b := c.Scoreboard()
	st.Score.Teams, st.Score.TimeLeft = b.TeamScore, b.TimeLeft.Seconds()
	st.Score.Rows = make([]ScoreRow, 0, len(b.Rows))
	for _, r := range b.Rows {
		name, _ := c.PlayerName(int(r.ID))
		st.Score.Rows = append(st.Score.Rows, ScoreRow{Name: name, ID: int(r.ID), Team: int(r.Team), Kills: int(r.Kills), Deaths: int(r.Deaths), PingMs: int(r.PingMS)})
		if int(r.ID) == st.ID {
			st.Score.Kills, st.Score.Deaths = int(r.Kills), int(r.Deaths)
		}
	}
	st.Events, s.events = s.events, nil
	if st.Events == nil {
		st.Events = []Event{}
	}
	st.Rewinds, st.Tracers, st.Explosions = nonNil(s.rewinds), nonNil(s.tracers), nonNil(s.explosions)
	s.rewinds, s.tracers, s.explosions = nil, nil, nil
	st.Projectiles = []Projectile{}
	if all {
		st.Projectiles = s.projectiles(c.ServerTime(now))
	}
	st.Net.PredictionErrorM = s.predErr
	st.Killer, st.Reports = s.killer, cs.Reports
	st.Place, st.RespawnMs = s.place, float64(RespawnDelay/time.Millisecond)
	st.Loadout = make([]string, len(s.weapons))
	for i, w := range s.weapons {
		st.Loadout[i] = w.Name
	}
	if st.Players == nil {
		st.Players = []Player{}
	}
	return st
}

// player describes ps, seen as player id of team.
func (s *Session) player(id, team int, ps game.PlayerState) Player {
	return Player{
		ID: id, Team: team, Pos: vec(ps.Pos),
		Yaw: game.AngleToRad(int32(ps.Yaw)), Pitch: game.AngleToRad(int32(ps.Pitch)),
		Health:    int(ps.Health),
		Crouched:  ps.Has(game.FlagCrouched),
		Dead:      ps.Has(game.FlagDead),
		Protected: ps.Has(game.FlagProtected),
		Reloading: ps.Has(weapon.FlagReloading),
		Carrier:   ps.Has(mode.FlagCarrier),
		Parts:     s.parts(ps),
	}
}

func (s *Session) parts(ps game.PlayerState) []game.PartView { return game.PartViews(ps, &s.params) }

// teams maps player slots to teams from the scoreboard, the only place
// the wire names other players' teams.
func (s *Session) teams() [wire.MaxEntities]int {
	var t [wire.MaxEntities]int
	for _, r := range s.c.Scoreboard().Rows {
		if int(r.ID) < len(t) {
			t[r.ID] = int(r.Team)
		}
	}
	return t
}

// RespawnDelay is the server's default delay from death to respawn
// (server.Config.RespawnDelay), which lagkit serve and studies keep: the
// page's respawn countdown.
const RespawnDelay = 3 * time.Second

// collect gathers the events the client core handed over: its hit
// reports and the confirmations of its own hits. Kills come from the
// server's kill events (collectShown): pairing a death with a rise in
// someone's kills named the wrong killer whenever two kills crossed.
func (s *Session) collect(r *client.Ready) {
	for _, h := range r.Hits {
		s.hurt = true
		s.event(Event{Kind: "hurt", Other: h.Shooter, Part: h.Part.String(), Damage: int(h.Damage), SBC: h.SBC})
	}
	for _, c := range r.Confirms {
		s.event(Event{Kind: "hit", Other: c.Victim, Part: c.Part.String(), Damage: int(c.Damage), Outcome: c.Outcome.String()})
	}
}

func (s *Session) event(e Event) {
	if len(s.events) >= maxEvents {
		s.events = s.events[1:]
	}
	s.events = append(s.events, e)
}

// nonNil returns l, or an empty list for nil: JSON's [] rather than null.
func nonNil[E any](l []E) []E {
	if l == nil {
		return []E{}
	}
	return l
}

func vec(v geom.Vec3) [3]float64 { return [3]float64{v.X, v.Y, v.Z} }
