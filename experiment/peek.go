package experiment

import (
	_ "embed"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/internal/msec"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/netem"
	"github.com/lagkit/lagkit/peek"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/shooter"
	"github.com/lagkit/lagkit/shooter/mode"
	"github.com/lagkit/lagkit/sim"
	"github.com/lagkit/lagkit/world"
)

// cornerJSON is the peek experiment's map: one wall whose east end is
// the corner. The defender holds the corner from the north-east; the
// peeker walks east along a lane south of the wall and comes into view
// past the corner.
//
//go:embed maps/corner.json
var cornerJSON []byte

// The corner map's duel: where the defender stands, the lane the peeker
// walks, and a round's timing.
var (
	peekDefenderPos = geom.V(6, 10, 0)
	peekLaneY       = -1.5
)

const (
	// peekFirstRound is when the first round's players are placed, after
	// both clients have joined.
	peekFirstRound = 1500 * time.Millisecond
	// peekRoundLen is a round's length; the peeker sets off peekGo after
	// the placement, when both clients have learned of it at any round
	// trip of the design.
	peekRoundLen = 3500 * time.Millisecond
	peekGo       = 800 * time.Millisecond
	// peekGoSpread is how much later than peekGo the peeker may set off.
	peekGoSpread = 100 * time.Millisecond
	// peekReaction and peekReactionSD are both bots' reaction time to a
	// newly drawn enemy (the same for both, so that only what they draw
	// differs), and peekAimSD the standard deviation of their aim error
	// on each axis.
	peekReaction   = 220 * time.Millisecond
	peekReactionSD = 30 * time.Millisecond
	peekAimSD      = 0.5 * math.Pi / 180
	// peekInterp is both clients' interpolation delay (the client's
	// default).
	peekInterp = 100 * time.Millisecond
)

// peekCorner is the corner map, loaded once, and peekSightX the lane's x
// at which a standing peeker's torso or eyes first come into the
// defender's sight (found on the map, not assumed).
var peekCorner, peekSightX = loadCorner()

func loadCorner() (*world.Map, float64) {
	m, err := world.Parse("corner.json", cornerJSON)
	if err != nil {
		panic(fmt.Sprintf("experiment: the shipped corner map: %v", err))
	}
	params := game.DefaultParams()
	eye := game.EyePos(game.PlayerState{Pos: peekDefenderPos}, &params)
	for x := -10.0; x < 5; x += 0.01 {
		if peek.Drawn(m.Grid, eye, math.Atan2(peekLaneY-eye.Y, x-eye.X), math.Pi, game.PlayerState{Pos: geom.V(x, peekLaneY, 0)}, &params) {
			return m, x
		}
	}
	panic("experiment: the corner map's lane never comes into the defender's sight")
}

// peekLatencies and peekStarts are the design's round trips (each for
// the peeker and the defender) and the peeker's start distances before
// the point where it comes into sight.
func peekDesign(quick bool) (lat []float64, starts []float64, reps, rounds int) {
	if quick {
		return []float64{0, 100, 200}, []float64{0.5, 4}, 2, 6
	}
	return []float64{0, 50, 100, 150, 200}, []float64{0.5, 2, 4}, 4, 16
}

func peekCondition(p, d, s float64) string {
	return fmt.Sprintf("peeker%.0f-defender%.0f-start%gm", p, d, s)
}

var _ = register(&Experiment{
	Name:  "peek",
	Title: "Where does the peeker's advantage come from: the defender's latency or the peeker's?",
	Design: "Two bots on corner, a map of one wall: the defender holds the corner's angle, standing still and facing " +
		"where the peeker comes into sight; the peeker starts on a lane behind the wall, a set distance before the " +
		"point where it comes into the defender's sight, and walks out facing the defender. Each bot reacts to the " +
		"other the same way (a reaction time of 220 ms, standard deviation 30 ms, after its own client first draws the " +
		"other; then aim at the torso as drawn, with 0.5 degrees of error per axis, and fire the rifle until the other " +
		"is dead or out of sight; the peeker stops walking when it reacts). The peeker's and the defender's round trips " +
		"each run over 0 to 200 ms and the start distance over 0.5 to 4 m, tlc at 64 Hz, 100 ms interpolation. A cell " +
		"plays rounds of 3.5 s: both placed, the peeker sets off 0.8 to 0.9 s later (at random, so rounds fall differently against the ticks). Per round the peek package records each " +
		"client's first sight of the other, first shot at it, the first registered hit and the kill; the advantage is " +
		"the defender's first sight less the peeker's, beside Riot's account (peeker's client frame + peeker's one-way " +
		"latency + server frame + defender's one-way latency + defender's interpolation delay). Swapped cells (the " +
		"peeker at the higher round trip against the defender at it, same start and seed) are paired to ask whether " +
		"the defender's latency moves the advantage, and the peeker's share of wins, more than the peeker's; slopes " +
		"are fitted over all cells. --quick plays 0, 100 and 200 ms, two starts, fewer rounds and seeds.",
	Cells: func(quick bool) []Cell {
		lat, starts, reps, rounds := peekDesign(quick)
		var cells []Cell
		for rep := range reps {
			for _, p := range lat {
				for _, d := range lat {
					for _, s := range starts {
						cells = append(cells, Cell{Index: len(cells), Condition: peekCondition(p, d, s), Replicate: rep,
							Params: map[string]any{"map": "corner", "policy": "tlc", "peeker_rtt_ms": p, "defender_rtt_ms": d,
								"start_m": s, "rounds": rounds, "weapon": "rifle", "interp_ms": 100}})
					}
				}
			}
		}
		return cells
	},
	RunCell:   runPeekCell,
	Summarise: summarisePeek,
})

// peekWhy says why the rerun can differ from Tokey et al.'s study.
const peekWhy = "Tokey et al. measured people in a game of their own; ours are two bots that react alike, on a map of one " +
	"wall, whose only difference is what their clients draw and when their shots reach the server. Their figures are " +
	"set here as directions only, unchecked against the paper's text."

// peekRound is one round's outcome, from the peeker's side: its
// advantage in first sight, who hit and who killed first.
type peekRound struct {
	both      bool    // both clients drew the other
	advMS     float64 // the defender's first sight less the peeker's
	shotLead  float64 // the defender's first shot less the peeker's, ms
	shotsBoth bool
	firstHit  int // 0: the peeker, 1: the defender, -1: none
	killer    int // 0, 1 or -1
}

// runPeekCell plays a cell's rounds and measures each.
func runPeekCell(c Cell) (CellResult, error) {
	pRTT, dRTT := param(c, "peeker_rtt_ms"), param(c, "defender_rtt_ms")
	start, rounds := param(c, "start_m"), int(param(c, "rounds"))
	if rounds < 1 || !(start >= 0 && start < 8) {
		return CellResult{}, fmt.Errorf("peek: %d rounds, start %v m: want at least one round and a start of 0 to 8 m", rounds, start)
	}
	params := game.DefaultParams()
	tick := game.TickDuration(64)
	rng := rand.New(rand.NewPCG(c.Seed, 0x7065656b))
	total := peekFirstRound + time.Duration(rounds)*peekRoundLen
	brains := [2]*duelist{
		{peeker: true, self: 0, foe: 1, startX: peekSightX - start, params: &params, rng: rand.New(rand.NewPCG(rng.Uint64(), 1)), round: -1},
		{self: 1, foe: 0, params: &params, rng: rand.New(rand.NewPCG(rng.Uint64(), 2)), round: -1},
	}
	var players []sim.PlayerConfig
	for i, rtt := range []float64{pRTT, dRTT} {
		link := netem.Config{Latency: msec.Duration(rtt / 2)}
		players = append(players, sim.PlayerConfig{
			Client: client.Config{Name: [2]string{"peeker", "defender"}[i], InterpDelay: peekInterp},
			Up:     link, Down: link, Brain: brains[i],
			JoinAt: time.Duration(i) * 20 * time.Millisecond,
			Phase:  time.Duration(rng.Int64N(int64(tick))),
		})
	}
	scfg := server.Config{
		Map: peekCorner, TickRate: 64, MaxClients: 2, Movement: &params, Seed: c.Seed,
		Policy: lagcomp.Config{Name: "tlc"}, Rules: shooter.Rules(mode.Config{Mode: mode.TDM, Duration: total}),
		RespawnDelay: 24 * time.Hour,
	}
	if err := sim.ArmShooter(&scfg, players, nil); err != nil {
		return CellResult{}, err
	}
	d, err := sim.NewDriver(scfg, players, rng.Uint64())
	if err != nil {
		return CellResult{}, err
	}
	for _, b := range brains {
		b.driver = d
	}
	obs := &peekObserver{w: peek.Watcher{Grid: peekCorner.Grid, Params: &params, Tracker: peek.Tracker{Gap: peekRoundLen}},
		d: d, brains: brains, rounds: rounds}
	d.Run(total, obs)
	obs.endRound(total)
	if len(obs.out) != rounds {
		return CellResult{}, fmt.Errorf("peek: %d of %d rounds played (a client did not connect?)", len(obs.out), rounds)
	}
	exp := msOf(peek.Expected(peek.Path{PeekerFrame: tick, PeekerOneWay: msec.Duration(pRTT / 2), ServerFrame: tick,
		DefenderOneWay: msec.Duration(dRTT / 2), DefenderInterp: peekInterp}))
	return peekMetrics(obs.out, exp), nil
}

func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// peekMetrics sums up a cell's rounds.
func peekMetrics(rounds []peekRound, expectedMS float64) CellResult {
	m := map[string]float64{"rounds": float64(len(rounds)), "expected_ms": expectedMS}
	var adv []float64
	var leadSum float64
	for _, r := range rounds {
		if r.both {
			m["duels"]++
			adv = append(adv, r.advMS)
			if r.advMS > 0 {
				m["peeker_saw_first"]++
			}
		}
		if r.shotsBoth {
			m["shot_pairs"]++
			leadSum += r.shotLead
		}
		switch r.firstHit {
		case 0:
			m["peeker_first_hits"]++
		case 1:
			m["defender_first_hits"]++
		}
		switch r.killer {
		case 0:
			m["peeker_kills"]++
		case 1:
			m["defender_kills"]++
		}
	}
	var advSum float64
	for _, a := range adv {
		advSum += a
	}
	m["advantage_sum_ms"] = advSum
	m["advantage_ms"] = safeDiv(advSum, m["duels"])
	m["advantage_error_ms"] = m["advantage_ms"] - expectedMS
	m["shot_lead_ms"] = safeDiv(leadSum, m["shot_pairs"])
	m["shot_lead_sum_ms"] = leadSum
	m["peeker_win_share"] = safeDiv(m["peeker_kills"], m["peeker_kills"]+m["defender_kills"])
	m["peeker_first_hit_share"] = safeDiv(m["peeker_first_hits"], m["peeker_first_hits"]+m["defender_first_hits"])
	return CellResult{Metrics: m, Series: map[string][]float64{"advantage_ms": adv}}
}

// roundAt returns the round under way at now and how far into it, or
// -1 before the first.
func roundAt(now time.Duration) (int, time.Duration) {
	if now < peekFirstRound {
		return -1, 0
	}
	r := int((now - peekFirstRound) / peekRoundLen)
	return r, now - peekFirstRound - time.Duration(r)*peekRoundLen
}

// peekObserver places the two bots at each round's start, watches their
// duel with a peek.Watcher from the peeker's setting off, and keeps each
// round's outcome.
type peekObserver struct {
	w       peek.Watcher
	d       *sim.Driver
	brains  [2]*duelist
	rounds  int
	records []server.ShotRecord
	log     []server.LogEntry
	placed  int // rounds placed
	going   int // rounds whose watch began
	out     []peekRound
}

func (o *peekObserver) Delivered(time.Duration, int, *sim.Player, *client.Ready) {}

func (o *peekObserver) Ticked(now time.Duration, _ int, p *sim.Player, _ *client.Ready) {
	if r, phase := roundAt(now); r >= 0 && r < o.going && phase >= peekGo {
		o.w.Client(now, p.Client)
	}
}

func (o *peekObserver) ServerReady(_ time.Duration, _ *server.Server, r *server.Ready) {
	o.records = append(o.records, r.Shots...)
	o.log = append(o.log, r.Log...)
}

func (o *peekObserver) ServerTicked(now time.Duration, s *server.Server) {
	o.w.Server(now, o.records, o.log)
	r, phase := roundAt(now)
	if r < 0 || r >= o.rounds {
		return
	}
	if r >= o.placed {
		if r > 0 {
			o.endRound(now)
		}
		ids := [2]int{}
		for i := range o.d.Players {
			id, ok := s.ClientByPeer(server.Peer(i))
			if !ok {
				return // not connected yet: no round
			}
			ids[i] = id
		}
		pe := geom.V(o.brains[0].startX, peekLaneY, 0)
		de := game.EyePos(game.PlayerState{Pos: peekDefenderPos}, o.w.Params)
		s.Place(ids[0], pe, math.Atan2(de.Y-pe.Y, de.X-pe.X))
		s.Place(ids[1], peekDefenderPos, math.Atan2(peekLaneY-peekDefenderPos.Y, peekSightX-peekDefenderPos.X))
		o.placed = r + 1
	}
	if o.going < o.placed && phase >= peekGo {
		// The sightings before now were of the last round's places.
		o.w.Tracker.Close(now)
		o.w.Tracker.Duels()
		o.going = o.placed
	}
}

// endRound closes the round under watch and keeps its outcome: its
// first duel (a later one is a client still drawing a player the server
// has killed).
func (o *peekObserver) endRound(now time.Duration) {
	if o.going == 0 || len(o.out) >= o.going {
		return
	}
	o.w.Tracker.Close(now)
	ds := o.w.Tracker.Duels()
	pr := peekRound{firstHit: -1, killer: -1}
	ids := [2]int{o.d.Players[0].Client.ID(), o.d.Players[1].Client.ID()}
	side := func(id int) int {
		switch id {
		case ids[0]:
			return 0
		case ids[1]:
			return 1
		}
		return -1
	}
	if len(ds) > 0 {
		first := slices.MinFunc(ds, func(a, b peek.Duel) int { return int(a.Start - b.Start) })
		if adv, ok := first.AdvantageOf(ids[0]); ok {
			pr.both, pr.advMS = true, msOf(adv)
		}
		shotP, shotD := first.ShotA, first.ShotB
		if first.A != ids[0] {
			shotP, shotD = shotD, shotP
		}
		if shotP != peek.Never && shotD != peek.Never {
			pr.shotsBoth, pr.shotLead = true, msOf(shotD-shotP)
		}
		if first.FirstHit >= 0 {
			pr.firstHit = side(first.FirstHit)
		}
		if first.Killer >= 0 {
			pr.killer = side(first.Killer)
		}
	}
	o.out = append(o.out, pr)
}

// duelist is a peek bot: the peeker walks out along the lane after the
// round's start, the defender holds the corner; each, once its own
// client has drawn the other and its reaction time has passed, aims at
// the other as drawn and fires.
type duelist struct {
	peeker    bool
	self, foe int // indices in driver.Players
	startX    float64
	params    *game.Params
	rng       *rand.Rand
	driver    *sim.Driver

	round          int
	goAt           time.Duration // the peeker's setting off, into the round
	sawAt, reactAt time.Duration
}

// Input steers the bot by what its client draws.
func (b *duelist) Input(now time.Duration, c *client.Client) game.UserCmd {
	var cmd game.UserCmd
	r, phase := roundAt(now)
	if r < 0 || b.driver == nil {
		return cmd
	}
	if r != b.round {
		b.round, b.sawAt = r, peek.Never
		b.reactAt = time.Duration(math.Max(float64(peekReaction)+b.rng.NormFloat64()*float64(peekReactionSD), float64(100*time.Millisecond)))
		// The peeker sets off at a random instant of the next 100 ms, so
		// rounds fall differently against the ticks.
		b.goAt = peekGo + time.Duration(b.rng.Int64N(int64(peekGoSpread)))
	}
	st := c.Predicted()
	if st.Has(game.FlagDead) {
		return cmd
	}
	eye := game.EyePos(st, b.params)
	look := geom.V(peekSightX, peekLaneY, 1.2) // the defender watches where the peeker appears
	if b.peeker {
		look = game.EyePos(game.PlayerState{Pos: peekDefenderPos}, b.params)
	}
	to := look.Sub(eye)
	yaw, pitch := math.Atan2(to.Y, to.X), math.Atan2(to.Z, math.Hypot(to.X, to.Y))
	settings, _ := c.Settings()
	fov := float64(max(settings.FOVDeg, 60)) * math.Pi / 180
	foe := b.driver.Players[b.foe].Client
	rs, ok := c.Remote(foe.ID(), c.ViewTime(now))
	drawn := ok && phase >= peekGo && peek.Drawn(b.driver.Server.Config().Map.Grid, eye, yaw, fov, rs, b.params)
	if drawn && b.sawAt == peek.Never {
		b.sawAt = now
		b.reactAt += now
	}
	reacted := b.sawAt != peek.Never && now >= b.reactAt
	if b.peeker && phase >= b.goAt && !reacted {
		dir := -game.AngleToRad(int32(game.YawUnits(yaw))) // walk along +X whatever the view
		cmd.Forward = int8(math.Round(127 * math.Cos(dir)))
		cmd.Side = int8(math.Round(-127 * math.Sin(dir)))
	}
	if reacted && drawn {
		t := game.TorsoOrigin(rs, b.params).Sub(eye)
		yaw = math.Atan2(t.Y, t.X) + b.rng.NormFloat64()*peekAimSD
		pitch = math.Atan2(t.Z, math.Hypot(t.X, t.Y)) + b.rng.NormFloat64()*peekAimSD
		cmd.Buttons |= game.BtnFire
	}
	cmd.Yaw, cmd.Pitch = game.YawUnits(yaw), game.PitchUnits(pitch)
	return cmd
}
