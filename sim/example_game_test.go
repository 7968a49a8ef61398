package sim_test

// docs/your-game.md quotes this game: each ```go block there marked
// <!-- quote: sim/example_game_test.go NAME --> is, byte for byte, the
// lines between "// quote: NAME" and the next "// quote: end" here
// (TestDocsQuotes in cmd/lagkit), so the guide's game is the one that
// runs.

// quote: imports
import (
	"fmt"
	"math"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/netem"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/sim"
	"github.com/lagkit/lagkit/world"
)

// quote: end

// quote: state
// Runner is the game's own state of a player, kept beside lagkit's
// position and health and predicted with them.
type Runner struct {
	Stamina   float32       `lagkit:"max=100,q=0.5"`      // sent to all: others draw it
	Sprinting bool          `lagkit:"owner"`              // to the player's own client
	Sprints   uint16        `lagkit:"owner"`              // sprints begun
	Cooldown  time.Duration `lagkit:"owner,max=1s,q=1ms"` // until the next sprint
	Item      uint8         `lagkit:"max=3"`              // 0 none, itemTonic
	Charges   int8          `lagkit:"owner,max=3"`        // uses left of the item
	Heading   int16         `lagkit:"min=-180,max=180"`   // degrees, for the others
	Tonics    uint8         `lagkit:"owner"`              // tonics drunk
}

// RunCmd is the game's own part of a command, beside lagkit's movement
// and buttons.
type RunCmd struct {
	Sprint bool
	Effort float32 `lagkit:"max=1,q=0.25"` // how hard the sprint pushes
	Use    bool    // drink the item
}

var (
	runner = game.MustDeclare[Runner]()
	runCmd = game.MustDeclareCmd[RunCmd]()
)

const itemTonic = 1

// quote: end

// quote: step
// runStep is the game's step: lagkit's movement, then a sprint that
// pushes the runner on along its view for stamina, with a cooldown,
// and a tonic that refills stamina. It reads only its arguments, so
// the server and the owner's prediction agree to the bit.
func runStep(s game.PlayerState, cmd game.UserCmd, ctx *game.StepCtx) (game.PlayerState, bool) {
	s, _ = ctx.Step(s, cmd)
	r, c := runner.Of(&s), runCmd.Of(&cmd)
	r.Cooldown = max(0, r.Cooldown-cmd.Duration)
	if c.Sprint && r.Stamina >= 1 && (r.Sprinting || r.Cooldown == 0) {
		if !r.Sprinting {
			r.Sprints++
		}
		yaw := game.AngleToRad(int32(s.Yaw))
		push := float64(c.Effort) * 0.05 // metres this tick
		to := game.SnapPos(s.Pos.Add(geom.V(math.Cos(yaw), math.Sin(yaw), 0).Scale(push)))
		if !ctx.Grid.SegmentBlocked(s.Pos.Add(geom.V(0, 0, 1)), to.Add(geom.V(0, 0, 1))) {
			s.Pos = to
		}
		r.Stamina = max(0, r.Stamina-2*c.Effort)
		r.Sprinting = true
	} else {
		if r.Sprinting {
			r.Cooldown = 500 * time.Millisecond
		}
		r.Sprinting = false
		r.Stamina = min(100, r.Stamina+0.5)
	}
	if c.Use && r.Item == itemTonic && r.Charges > 0 {
		r.Stamina = 100
		r.Charges--
		r.Tonics++
		if r.Charges == 0 {
			r.Item = 0
		}
	}
	r.Heading = int16(math.Round(math.Remainder(game.AngleToRad(int32(s.Yaw)), 2*math.Pi) * 180 / math.Pi))
	return s, false // runners do not shoot
}

// quote: end

// quote: rules
// twoTeams are the game's match rules: two teams, the smaller one takes
// a joining player, and only the other team is an enemy. The rest
// (scoring, spawns, no end) are server.NoRules'.
type twoTeams struct{ server.NoRules }

func (twoTeams) Name() string                  { return "runners" }
func (twoTeams) Teams() bool                   { return true }
func (twoTeams) Enemies(_, ta, _, tb int) bool { return ta != tb }
func (twoTeams) Team(sizes [2]int) int {
	if sizes[1] < sizes[0] {
		return 1
	}
	return 0
}

// disc is every runner's body for lag-compensated hit tests.
var disc lagcomp.Body = lagcomp.Parts{{Shape: lagcomp.Circle{R: 0.3}, Damage: 25}}

// quote: end

// quote: bot
// lapper runs in a circle, sprints two seconds in every three and
// drinks a tonic when it has one and is low on stamina.
type lapper struct{ side int8 }

func (l lapper) Input(now time.Duration, c *client.Client) game.UserCmd {
	cmd := game.UserCmd{Forward: 100, Side: l.side, Yaw: uint16(now / (4 * time.Millisecond))}
	me := c.Predicted()
	runCmd.Set(&cmd, RunCmd{
		Sprint: now%(3*time.Second) < 2*time.Second,
		Effort: 0.75,
		Use:    runner.Of(&me).Item == itemTonic && runner.Of(&me).Stamina < 40,
	})
	return cmd
}

// quote: end

// quote: example
// Example_game is a small game of its own on lagkit's netcode: its
// declared state of eight fields and its command part, its step, its
// match rules and its body, and two clients over 40 ms links with 2%
// loss, predicting it. The server grants one runner a tonic into its
// predicted state; the runner's client sees it and drinks it, predicted.
func Example_game() {
	link := netem.Config{Latency: 40 * time.Millisecond, Loss: 0.02}
	d, err := sim.NewDriver(server.Config{
		Map:   world.Field(),
		Step:  runStep,
		Game:  runner.Layout,
		Cmd:   runCmd.CmdLayout,
		Body:  disc,
		Rules: func(server.RulesEnv) (server.Rules, error) { return twoTeams{}, nil },
	}, []sim.PlayerConfig{
		{Brain: lapper{side: 40}, Up: link, Down: link},
		{Brain: lapper{side: -40}, Up: link, Down: link, JoinAt: 20 * time.Millisecond},
	}, 7)
	if err != nil {
		panic(err)
	}
	d.Run(2*time.Second, nil)
	a, b := d.Players[0].Client, d.Players[1].Client
	fmt.Println("teams:", a.Team(), b.Team())

	// The server grants a tonic of three charges: between ticks, into
	// the state the client predicts.
	err = d.Server.Edit(a.ID(), func(st *game.PlayerState) {
		r := runner.Of(st)
		r.Item, r.Charges = itemTonic, 3
	})
	if err != nil {
		panic(err)
	}
	d.Run(2100*time.Millisecond, nil)
	st := a.Predicted()
	me := runner.Get(&st)
	fmt.Println("predicted: item", me.Item, "charges", me.Charges, "tonics", me.Tonics)

	// Ten seconds, from the end of the spawn protection (5 s, a flag the
	// server clears): every field of both runners predicted exactly.
	d.Run(6*time.Second, nil)
	var wrong, of [2]int // counted from here, from each client's handovers
	d.Run(16*time.Second, sim.ClientReadys(func(_ time.Duration, i int, _ *sim.Player, r *client.Ready) {
		for _, f := range r.Mispredictions {
			wrong[i] += f.Wrong
		}
		of[i] += r.Predictions
	}))
	for i, c := range []*client.Client{a, b} {
		me := c.Predicted()
		r := runner.Of(&me)
		fmt.Printf("runner %d: %d wrong, over 500 predictions: %v; sprints %d, tonics %d\n",
			c.ID(), wrong[i], of[i] > 500, r.Sprints, r.Tonics)
	}
	srv, _, _ := d.Server.PlayerState(a.ID())
	fmt.Println("server's item:", runner.Of(&srv).Item, "charges:", runner.Of(&srv).Charges)

	// Lag compensation with the game's body: a ray at runner a where b
	// draws it hits a's disc rewound to b's view time and misses the
	// live one.
	now := d.Now()
	drawn, _ := b.Remote(a.ID(), b.ViewTime(now))
	from, _, _ := d.Server.PlayerState(b.ID())
	ray := geom.Ray{Origin: from.Pos, Dir: drawn.Pos.Sub(from.Pos).Norm()}
	notB := func(id int) bool { return id == b.ID() }
	_, rewound := d.Server.TraceAt(ray, 200, b.ViewTime(now), notB)
	_, live := d.Server.TraceAt(ray, 200, now, notB)
	fmt.Println("rewound hit:", rewound, "live hit:", live)
	// Output:
	// teams: 0 1
	// predicted: item 1 charges 2 tonics 1
	// runner 0: 0 wrong, over 500 predictions: true; sprints 15, tonics 3
	// runner 1: 0 wrong, over 500 predictions: true; sprints 17, tonics 0
	// server's item: 0 charges: 0
	// rewound hit: true live hit: false
}

// quote: end
