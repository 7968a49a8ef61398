package wire

import (
	"math"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
)

// walkerArms is the walkers' declared state: a weapon's, as lagkit's
// shooter keeps it (weapon.Arms), sent to the owner.
type walkerArms struct {
	Weapon, Ammo, Heat uint8         `lagkit:"owner"`
	Wait               time.Duration `lagkit:"owner,max=1m"`
}

var walkerDecl = game.MustDeclare[walkerArms]()

// Walkers returns the snapshot of 63 remote players and the receiver
// walking at 4 m/s in different directions at tick (64 Hz). turn makes the
// remote players turn at up to 90 degrees a second. It is the load of the
// snapshot benchmarks (wire's and `lagkit bench`).
func Walkers(tick uint32, turn bool) *Snapshot {
	const speed, rate = 4.0, 64.0
	t := float64(tick) / rate
	s := &Snapshot{Tick: tick, LastCmd: tick + 5, EchoClientTime: time.Duration(tick) * 15625 * time.Microsecond,
		EchoHold: 3 * time.Millisecond, FirstEventSeq: 40}
	s.SetSlots(MaxEntities)
	q := func(v float64) float64 { return math.Round(v/game.PosQuantum) * game.PosQuantum }
	s.Self = game.PlayerState{
		Pos:    geom.V(q(-20+speed*t*0.6), q(10-speed*t*0.8), 0),
		Vel:    geom.V(q(speed*0.6), q(-speed*0.8), 0),
		Yaw:    game.YawUnits(math.Atan2(-0.8, 0.6)),
		Flags:  game.FlagOnGround,
		Health: 100,
	}
	walkerDecl.Set(&s.Self, walkerArms{Ammo: 30})
	s.SetGame(walkerDecl.Layout)
	for i := 1; i < 64; i++ {
		dir := float64(i) * 2.4
		yaw := dir
		if turn {
			yaw += t * math.Pi / 2 * float64(i%5-2) / 2
		}
		p := geom.V(float64(i%8)*7-28+speed*t*math.Cos(dir), float64(i/8)*7-28+speed*t*math.Sin(dir), 0)
		if i%9 == 0 {
			p.Z = 1 // standing on a low cover
		}
		e := EntityFromState(game.PlayerState{Pos: p, Yaw: game.YawUnits(yaw), Pitch: int16(i * 40), Flags: game.FlagOnGround})
		e.Stamp = tick // as the server stamps every state it sends
		s.Entities[i] = e
		s.SetPresent(i, true)
	}
	return s
}
