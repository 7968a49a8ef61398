package match

import (
	"bufio"
	"encoding/json"
	"io"
	"slices"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/internal/netcheck"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/netem"
	"github.com/lagkit/lagkit/peek"
	"github.com/lagkit/lagkit/reckoning"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/sim"
)

// stillRadius is how far a player must move to count as not standing
// still.
const stillRadius = 0.5

// shotKey joins what the server, the victim's client and the shooter's
// client each know of a hit.
type shotKey struct {
	shooter  int
	shotTick uint32
	victim   int
}

// recordKey names one shot record: a time warp may record a pellet
// again at a later time.
type recordKey struct {
	shooter  int
	shotTick uint32
	pellet   int
	victim   int
	at       time.Duration
}

func keyOf(r *server.ShotRecord) recordKey {
	return recordKey{r.Shooter, r.ShotTick, r.Pellet, r.Victim, r.Time}
}

// observer gathers a match's statistics and log as it runs.
type observer struct {
	// onTick is the game's server logic (Game.OnTick).
	onTick  func(s *server.Server, r *server.Ready)
	records []server.ShotRecord
	log     []server.LogEntry
	hits    map[shotKey]bool // SBC as the victim's client saw the hit
	// sights are the victims' judgments of the told hits as the server
	// received them (Ready.Sightings), by record.
	sights   map[recordKey]server.Sight
	confirms map[shotKey]time.Duration

	last     []game.PlayerState
	seen     []bool
	distance []float64
	anchor   []geom.Vec3
	anchorAt []time.Duration
	maxStill []time.Duration

	// paths, when set, gets each living player's position every
	// pathEvery server ticks; pathErr is its first error.
	paths     *reckoning.PathWriter
	pathEvery int
	// keepLooks keeps looks, where each player looked at each path
	// sample (Config.PathLooks).
	keepLooks bool
	looks     []Look
	ticks     int
	pathErr   error

	// display measures each player's display error against the
	// server's history.
	display []sim.DisplayError
	history *lagcomp.History
	// net, when set, samples the players' links (Config.NetCheck).
	net *netObserver
	// duels, when Config.Duels asks, follows the players' duels
	// (Result.Duels).
	duels *peek.Watcher
}

// netSampleEvery is how often a NetCheck samples a round trip.
const netSampleEvery = 50 * time.Millisecond

// netObserver samples the players' round trips, by server id for the
// server's estimate and by player index for the client's, from from on.
type netObserver struct {
	from    time.Duration
	srv     map[int]*netcheck.RTT
	nextSrv time.Duration
	cli     []netcheck.RTT
	nextCli []time.Duration
	base    [][2]netcheck.Link
	based   []bool
}

func newNetObserver(n int, from time.Duration) *netObserver {
	return &netObserver{from: from, nextSrv: from, srv: map[int]*netcheck.RTT{}, cli: make([]netcheck.RTT, n),
		nextCli: make([]time.Duration, n), base: make([][2]netcheck.Link, n), based: make([]bool, n)}
}

func simLink(l *netem.Link) netcheck.Link {
	if l == nil {
		return netcheck.Link{}
	}
	st := l.Stats()
	return netcheck.Link{Sent: st.Sent, Dropped: st.Lost + st.BurstLost + st.Dropped, Delivered: st.Delivered, Delay: st.DelaySum}
}

// client samples player i's client estimate when one is due.
func (n *netObserver) client(now time.Duration, i int, p *sim.Player) {
	if now < n.from || i >= len(n.cli) {
		return
	}
	if !n.based[i] {
		n.based[i], n.base[i] = true, [2]netcheck.Link{simLink(p.Up), simLink(p.Down)}
		n.nextCli[i] = now
	}
	if now >= n.nextCli[i] {
		n.cli[i].Add(p.Client.RTT())
		for n.nextCli[i] <= now {
			n.nextCli[i] += netSampleEvery
		}
	}
}

// server samples the server's estimates when they are due.
func (n *netObserver) server(now time.Duration, s *server.Server, players int) {
	if now < n.nextSrv {
		return
	}
	for n.nextSrv <= now {
		n.nextSrv += netSampleEvery
	}
	for id := range players {
		if ci, ok := s.Client(id); ok {
			if n.srv[id] == nil {
				n.srv[id] = &netcheck.RTT{}
			}
			n.srv[id].Add(ci.RTT)
		}
	}
}

// result is player i's (server id id) NetCheck.
func (n *netObserver) result(i, id int, p *sim.Player) NetCheck {
	out := NetCheck{Client: n.cli[i].Summary()}
	if r := n.srv[id]; r != nil {
		out.Server = r.Summary()
	}
	up, down := simLink(p.Up), simLink(p.Down)
	b := n.base[i]
	out.Up = netcheck.Link{Sent: up.Sent - b[0].Sent, Dropped: up.Dropped - b[0].Dropped, Delivered: up.Delivered - b[0].Delivered, Delay: up.Delay - b[0].Delay}
	out.Down = netcheck.Link{Sent: down.Sent - b[1].Sent, Dropped: down.Dropped - b[1].Dropped, Delivered: down.Delivered - b[1].Delivered, Delay: down.Delay - b[1].Delay}
	return out
}

func newObserver(n int) *observer {
	return &observer{
		hits: map[shotKey]bool{}, confirms: map[shotKey]time.Duration{}, sights: map[recordKey]server.Sight{},
		last: make([]game.PlayerState, n), seen: make([]bool, n), distance: make([]float64, n),
		anchor: make([]geom.Vec3, n), anchorAt: make([]time.Duration, n), maxStill: make([]time.Duration, n),
	}
}

func (o *observer) Delivered(_ time.Duration, _ int, p *sim.Player, rd *client.Ready) {
	c := p.Client
	for _, h := range rd.Hits {
		o.hits[shotKey{h.Shooter, h.ShotTick, c.ID()}] = h.SBC
	}
	for _, r := range rd.Confirms {
		o.confirms[shotKey{c.ID(), r.ShotTick, r.Victim}] = r.Delay
	}
}

func (o *observer) Ticked(now time.Duration, i int, p *sim.Player, _ *client.Ready) {
	o.observeDisplay(now, i, p)
	if o.duels != nil {
		o.duels.Client(now, p.Client)
	}
	if o.net != nil {
		o.net.client(now, i, p)
	}
}

// Look is where a player looked at a path sample: its view angles in
// the server's state, in angle units.
type Look struct {
	T      time.Duration
	Player int
	Yaw    uint16
	Pitch  int16
}

// ServerReady collects the server's shot records and log.
func (o *observer) ServerReady(_ time.Duration, s *server.Server, r *server.Ready) {
	if o.onTick != nil {
		o.onTick(s, r)
	}
	o.records = append(o.records, r.Shots...)
	o.log = append(o.log, r.Log...)
	for i := range r.Sightings {
		o.sights[keyOf(&r.Sightings[i])] = r.Sightings[i].Sight
	}
}

// ServerTicked tracks how far each player walked and how long it stood
// still while alive, records paths, and shows the duels what happened.
func (o *observer) ServerTicked(now time.Duration, s *server.Server) {
	record := o.paths != nil && o.pathErr == nil && o.ticks%o.pathEvery == 0
	o.ticks++
	for id := range o.last {
		st, team, ok := s.PlayerState(id)
		if !ok {
			continue
		}
		alive := !st.Has(game.FlagDead)
		if o.seen[id] && alive && st.Teleport == o.last[id].Teleport && !o.last[id].Has(game.FlagDead) {
			o.distance[id] += st.Pos.Dist(o.last[id].Pos)
		}
		if !alive || !o.seen[id] || st.Pos.Dist(o.anchor[id]) > stillRadius || st.Teleport != o.last[id].Teleport {
			o.anchor[id], o.anchorAt[id] = st.Pos, now
		} else {
			o.maxStill[id] = max(o.maxStill[id], now-o.anchorAt[id])
		}
		o.last[id], o.seen[id] = st, true
		if record && alive {
			o.pathErr = o.paths.Write(reckoning.Sample{T: now, Player: id, Team: team, Pos: st.Pos, Vel: st.Vel, HasVel: true})
			if o.keepLooks {
				o.looks = append(o.looks, Look{T: now, Player: id, Yaw: st.Yaw, Pitch: st.Pitch})
			}
		}
	}
	if o.net != nil {
		o.net.server(now, s, len(o.last))
	}
	if o.duels != nil {
		o.duels.Server(now, o.records, o.log)
	}
}

// shots joins the server's records with the clients' reports and, for
// the told hits, their victims' judgments as the server received them.
func (o *observer) shots() []Shot {
	out := make([]Shot, len(o.records))
	for i, r := range o.records {
		out[i] = Shot{ShotRecord: r}
		if r.Told {
			out[i].Sight = o.sights[keyOf(&r)]
		}
		if r.Victim >= 0 {
			k := shotKey{r.Shooter, r.ShotTick, r.Victim}
			out[i].SBC = o.hits[k]
			out[i].ConfirmDelay = o.confirms[k]
		}
	}
	return out
}

// write puts the match log on w as JSON lines in server time order:
// shots (with their hit, appeal and SBC), kills, spawns, connects and
// objective events.
func (o *observer) write(w io.Writer, shots []Shot) error {
	lines := make([]logLine, 0, len(shots)+len(o.log))
	for _, s := range shots {
		l := logLine{
			T: s.Time.Seconds(), Type: "shot", Shooter: ptr(s.Shooter),
			Hit: ptr(s.Hit), Registered: ptr(s.Registered), RewindMS: ptr(s.RewindMS),
		}
		if s.Victim >= 0 {
			l.Victim, l.Part, l.SBC, l.RollbackM = ptr(s.Victim), s.Part.String(), ptr(s.SBC), ptr(s.RollbackM)
			l.Outcome, l.Damage = s.Outcome.String(), ptr(int(s.Damage))
			l.Appeal = "none"
			if s.Appealed {
				l.Appeal = s.Outcome.String()
			}
			if s.ConfirmDelay > 0 {
				l.ConfirmMS = ptr(float64(s.ConfirmDelay) / float64(time.Millisecond))
			}
		}
		lines = append(lines, l)
	}
	for _, e := range o.log {
		l := logLine{T: e.Time.Seconds(), Type: e.Kind, Pos: &[3]float64{e.Pos.X, e.Pos.Y, e.Pos.Z}}
		switch {
		case e.Kind == "kill":
			l.Shooter, l.Victim = ptr(e.Player), ptr(e.Other)
		case e.Objective >= 0:
			l.Objective, l.Team = ptr(e.Objective), ptr(e.Team)
			if e.Player >= 0 {
				l.Player = ptr(e.Player)
			}
		default:
			l.Player, l.Team = ptr(e.Player), ptr(e.Team)
		}
		lines = append(lines, l)
	}
	slices.SortStableFunc(lines, func(a, b logLine) int {
		switch {
		case a.T < b.T:
			return -1
		case a.T > b.T:
			return 1
		}
		return 0
	})
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for i := range lines {
		if err := enc.Encode(&lines[i]); err != nil {
			return err
		}
	}
	return bw.Flush()
}
