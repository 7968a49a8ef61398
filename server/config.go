package server

import (
	"crypto/ecdh"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/lagkit/lagkit/delay"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/reckoning"
	"github.com/lagkit/lagkit/token"
	"github.com/lagkit/lagkit/wire"
	"github.com/lagkit/lagkit/world"
)

// Config sets up a Server. The zero value of every field but Map selects
// its documented default.
type Config struct {
	// Map is the world the match is played in. Required.
	Map *world.Map
	// TickRate is the simulation rate in ticks per second, 20 to 128
	// (default 64).
	TickRate int
	// MaxClients is the number of player slots (default 64, at most
	// wire.MaxEntities and Shape's slots).
	MaxClients int
	// MaxUnlag is how far back the pose history reaches, and so the
	// furthest lag compensation can rewind (default 1 s, as Source's
	// sv_maxunlag).
	MaxUnlag time.Duration
	// Movement are the movement rules shared with clients (default
	// game.DefaultParams()).
	Movement *game.Params
	// Step is the game's movement and firing rule (default
	// game.DefaultStep, lagkit's movement firing nothing), run for every
	// command live and when time warp re-runs a tick. The
	// clients must predict with the same one (client.Config.Step).
	Step game.StepFunc
	// Game is the game's own declared state of each player and entity
	// (game.Declare's schema, its Layout): snapshots carry its fields
	// to the owner, to all or to the owner's team as its tags say (a
	// team field goes to the players of the owner's team when the
	// rules play teams, Rules.Teams, and to the owner alone otherwise).
	// nil (the default) is none: a game that keeps no state of its own.
	// lagkit's shooter declares its weapons' state (weapon.Layout). The
	// clients
	// must declare the same (client.Config.Game): a Connect whose
	// declaration's hash differs is refused.
	Game *game.Layout
	// Cmd is the game's own part of every command (game.DeclareCmd's
	// schema, its CmdLayout): the command packets carry its fields, and
	// Step reads them from UserCmd.Game. nil (the default) is lagkit's
	// own game, whose packets are unchanged by it. The clients must
	// declare the same (client.Config.Cmd): a Connect whose
	// declaration's hash differs is refused.
	Cmd *game.CmdLayout
	// Spawn, if set, is the game's respawn rule: it runs whenever a
	// player (re)spawns or is placed (Place), after lagkit has set its
	// own fields (position, health, weapon), with the player's slot,
	// its team as the server knows it then (the one its rules gave it,
	// Rules.Team, or its seat, Config.Seat; 0 for every player of
	// rules without teams) and its game state (PlayerState.Game) as it
	// was before: a game that hands out a loadout by team or class, or
	// resets a cooldown, does it here. Without it a game's state
	// survives death and placement unchanged; a player joining starts
	// from zero.
	Spawn func(id, team int, st *game.PlayerState)
	// Died, if set, is the game's death rule: it runs whenever a player
	// dies, live or in time warp's re-simulation, after lagkit has set
	// its own fields (no health, game.FlagDead), with the player's slot
	// and state: a game whose death stops a reload or drops a charge
	// does it here (lagkit's shooter stops a reload, weapon.Disarm).
	Died func(id int, st *game.PlayerState)
	// Body, if set, is every player's body for a game's own hit tests:
	// the players are recorded each tick with it, for TraceAt. lagkit's
	// own hitscan keeps its humanoid hitboxes (History and Tracer). Its
	// Reach must lie within wire.MaxBodyLocal (64 m), as the spot of a
	// hit on it that its victim is told of (wire.HitEvent.Local) does.
	Body lagcomp.Body
	// BodyOf, if set instead of Body, gives each living player's body
	// at each tick from its slot and state after the tick (a heavy's
	// bigger one, a crouched one; nil: not hittable that tick). The body
	// is recorded with the pose, so TraceAt tests the one the player had
	// at the rewound time, not its present one. It is called once per
	// player per tick on the tick's goroutine and must return shared
	// values (a Body made once per kind): converting a Parts slice to a
	// Body at each call allocates. A hit on one further than
	// wire.MaxBodyLocal from its origin stands without its victim being
	// told (no HitEvent carries the spot), nor asked under alc.
	BodyOf func(id int, st game.PlayerState) lagcomp.Body
	// MaxHealth, if set, is a player's full health (its class's), from
	// its slot and its state at a spawn, a placement or a restart (its
	// game state, PlayerState.Game, kept; its own fields new): the
	// health it starts with, before Spawn. nil is game.MaxHealth; a
	// value below 1 counts as 1. A client that draws health bars works
	// out the same from the state it sees (Shape.HealthToAll sends
	// every player's health).
	MaxHealth func(id int, st game.PlayerState) int16
	// Shape sizes the wire's fields for the game (wire.Shape): how many
	// slots its players and entities share (the entities' are from
	// MaxClients up), how many parts its bodies have (a hit's
	// lagcomp.BodyHit.Part is below it; a part beyond is recorded and sent
	// as the last one), and whether every player's health goes to every
	// client. Its clients' must be the same: a Connect of another shape is
	// refused, naming the field. The zero Shape is lagkit's own game: 256
	// slots, four parts, health to its owner alone.
	Shape wire.Shape
	// Shots resolves the players' shots (see Shots): each command that
	// fires (Step reports it) is handed to it with the time its shooter
	// saw, in the world the lag compensation policy judges it in, and
	// the hits it registers take the core's one path (the policy's
	// verdict, damage, kills, records). nil (the default) is NoShots:
	// shots hit nothing. lagkit's shooter's weapons are shooter.Weapons:
	// hitscan pellets and projectiles (ShotWorld.Launch). Time warp
	// re-runs the shots of a re-simulated tick through it too
	// (ShotWorld.Rejudged), but for a recorded shot nothing it could see
	// changed, which stands as recorded without Fire.
	Shots Shots
	// MoveSlack is the movement time a client may bank beyond the wall
	// time that has passed, to absorb jitter and recover commands delayed by
	// loss (default 100 ms). A client never moves further than elapsed time
	// plus this allowance, however many or however long the commands it
	// sends.
	MoveSlack time.Duration
	// CmdQueue is how many received commands a client may have waiting for
	// execution; more are dropped (default 32, half a second at 64 Hz).
	CmdQueue int
	// InterpMin and InterpMax bound the interpolation delay a client may
	// declare (defaults 0 and 500 ms).
	InterpMin, InterpMax time.Duration
	// Timeout is the silence after which a client is dropped (default 10 s).
	Timeout time.Duration
	// Limits bound what each client may send (see Limits for the
	// defaults).
	Limits Limits
	// Seed seeds the server's random generator (spawn choice).
	Seed uint64
	// CookieKey keys the address tokens a client must echo before it
	// gets a slot (see wire.Challenge). A server on a real network must
	// set it to 32 random bytes: the default is derived from Seed, which
	// suits a simulation but is no secret.
	CookieKey []byte
	// SealKey, if set, is the server's X25519 key for sealing sessions
	// (package seal): its public key goes in every Challenge, and a
	// client whose Connect carries a key of its own gets a session whose
	// every datagram after the handshake is authenticated and encrypted;
	// one that does not fails to open is dropped (Stats.Forged). Drivers
	// make it with seal.NewKey; nil seals nothing (a simulation, whose
	// emulated links nobody can forge datagrams on).
	SealKey *ecdh.PrivateKey

	// ConnectKey, if set (token.KeySize bytes), makes the server admit
	// only a Connect carrying a connect token (package token) sealed
	// under it, unexpired, for MatchID at Address, and not used before.
	// A refused Connect gets no reply; Stats.Tokens counts it by reason.
	ConnectKey []byte
	// MatchID and Address are what a connect token must name.
	MatchID, Address string
	// Epoch is the wall time at the server's time zero, against which
	// connect tokens' expiry is checked: the core reads no clock, its
	// driver supplies this once (realtime sets it when it starts the
	// server; a simulation sets any fixed time and issues tokens relative
	// to it). Required with ConnectKey.
	Epoch time.Time
	// TokenWindow bounds the token ids remembered against replay (default
	// 4096). An id is forgotten once its token expires; while the window
	// is full of unexpired ids, token connects are refused (Stats.Tokens.
	// WindowFull) rather than the bound broken.
	TokenWindow int

	// Policy is the lag compensation policy and its parameters (default
	// tlc).
	Policy lagcomp.Config
	// ViewTimeTolerance is how far a command's view time may lie from the
	// server's own estimate and still be trusted (default 200 ms, as
	// Source uses).
	ViewTimeTolerance time.Duration
	// RespawnDelay is the time from death to respawn (default 3 s), and
	// SpawnProtection how long a respawned player cannot be hit (default
	// 5 s).
	RespawnDelay, SpawnProtection time.Duration
	// AppealRate is how many appeals per second a victim may make, with a
	// burst of as many (default 10); hits beyond it are registered
	// without appeal.
	AppealRate float64

	// Rules makes the game's match rules (see Rules) for the server's
	// map and slots: teams, scoring, respawn, objectives, the round's
	// end. nil: NoRules. lagkit's shooter's modes are shooter.Rules.
	Rules func(RulesEnv) (Rules, error)
	// Replication chooses how other players' states reach each client
	// (default: in every snapshot).
	Replication Replication
	// Bandwidth is the bytes per second of snapshots each client is
	// sent, counting 28 bytes of IPv4 and UDP header a datagram (default
	// 16000, 128 kbit/s; negative: no limit). Under it other players'
	// states go by priority (see replicate.go); threshold replication
	// is not limited.
	Bandwidth int
	// Settings are mandated for every client.
	Settings Settings
	// Delay is time delay or adaptive time delay (default none; see
	// package delay).
	Delay delay.Config
	// Adjust makes the world adjustments at hit registration (see
	// Adjustment), offered in order a hitscan ray that missed every true
	// hitbox (default none). lagkit's shooter's attribute scaling and aim
	// assistance are shooter.Adjust.
	Adjust func(RulesEnv) ([]Adjustment, error)
	// TimeWarp is how late a command may reach the server and still be
	// executed at the tick its client issued it, the server re-simulating
	// from there (0, the default: off; 500 ms is usual; at most
	// MaxTimeWarp and MaxUnlag, less than RespawnDelay). It needs policy
	// none and rules without objectives (Rules.WarpCheck; see the time
	// warp notes in timewarp.go).
	TimeWarp time.Duration
	// TimeWarpHitscanOnly limits time warp to hitscan shots, as the time
	// warp study warped its raygun alone ([timewarp]; see
	// timewarp.Rules.HitscanOnly): commands run when they arrive, and
	// each hitscan shot is judged at the tick its command was issued.
	// It needs TimeWarp, and a resolver that says which shots are
	// hitscan (an Armoury).
	TimeWarpHitscanOnly bool
	// ShowRewind sends the shooter and the victim of every hitscan hit a
	// wire.RewindEvent: the victim's pose the server tested, how far it
	// rewound, and where the victim was then, so a client can draw what
	// lag compensation did (as Source's sv_showlagcompensation does,
	// [source]). Off by default: it costs bytes on every hit.
	ShowRewind bool
	// ShowTracers sends the clients near another player's hitscan shot,
	// hit or miss, a wire.TracerEvent to draw it by (see TracerReach and
	// MaxTracersPerSnapshot). Off by default: it costs bytes on shots
	// that change nothing.
	ShowTracers bool
	// Seat, if set, places each client that connects, given who it is
	// (see Identity): its slot and team, or a refusal. The server then
	// keeps each identity's statistics (Tally) across a disconnect, so a
	// player who connects again carries on where it left.
	Seat func(Identity) Placement
}

// Replication configures threshold replication ([led]): a
// player's state goes to a client only when the dead reckoning that
// client holds of it strays from the truth by more than the policy's
// threshold, at least every heartbeat, and at once on a teleport, a death
// or a change of stance or flags. Clients draw such players with the same
// model (client.DeadReckon with the same Policy and Order).
type Replication struct {
	// Policy is the dead or led reckoning policy; nil replicates every
	// state in every snapshot.
	Policy reckoning.Policy
	// Teams, when Policy is set, may hold the policy for the players of
	// each team, by team number (led reckoning with each team's trend
	// map); Policy serves the others.
	Teams []reckoning.Policy
	Order reckoning.Order
	// Heartbeat is the longest a player's state goes unsent (default
	// 5 s).
	Heartbeat time.Duration
	// TurnDeg also sends a state whose view yaw turned by more than this
	// since the last one sent (default 15 degrees), so remote players
	// face about where they look.
	TurnDeg float64
}

// Settings are the client settings a server mandates, as a study needs
// them equal for everyone.
type Settings struct {
	// FOVDeg is the horizontal field of view (default 90 degrees).
	FOVDeg int
	// HitIndicator shows the direction a hit came from; Minimap shows
	// the minimap; PingColumn shows pings on the scoreboard.
	HitIndicator, Minimap, PingColumn bool
	// Display names the display mode every client draws remote players
	// with (client.DisplayNames; default: each client's own choice).
	Display string
	// PredictionOff has every client show its own player where the
	// server last put it instead of predicting its commands (default:
	// clients predict).
	PredictionOff bool
	// Feedback names what every client shows its player of the network
	// (client.Feedbacks: none, ping, netgraph or placebo; default: each
	// client's own choice). A placebo shows PlaceboMS (0 to 65535) when
	// set, else the real round trip times PlaceboScale (0 to 65.535;
	// 0: the client's default).
	Feedback     string
	PlaceboMS    float64
	PlaceboScale float64
}

func (c *Config) withDefaults() (Config, error) {
	out := *c
	if out.Map == nil {
		return out, errors.New("server: config: map is required")
	}
	if out.TickRate == 0 {
		out.TickRate = 64
	}
	if out.TickRate < game.MinTickRate || out.TickRate > game.MaxTickRate {
		return out, fmt.Errorf("server: config: tick rate %d outside 20..128", out.TickRate)
	}
	if out.MaxClients == 0 {
		out.MaxClients = 64
	}
	if out.MaxClients < 1 || out.MaxClients > wire.MaxEntities {
		return out, fmt.Errorf("server: config: max clients %d outside 1..%d", out.MaxClients, wire.MaxEntities)
	}
	if out.MaxUnlag == 0 {
		out.MaxUnlag = time.Second
	}
	if out.MaxUnlag < 0 || out.MaxUnlag > 5*time.Second {
		return out, fmt.Errorf("server: config: max unlag %v outside 0..5s", out.MaxUnlag)
	}
	if out.Movement == nil {
		p := game.DefaultParams()
		out.Movement = &p
	}
	if err := out.Movement.Validate(); err != nil {
		return out, fmt.Errorf("server: config: movement: %w", err)
	}
	if out.Step == nil {
		out.Step = game.DefaultStep
	}
	if out.MoveSlack == 0 {
		out.MoveSlack = 100 * time.Millisecond
	}
	if out.MoveSlack < 0 || out.MoveSlack > time.Second {
		return out, fmt.Errorf("server: config: move slack %v outside 0..1s", out.MoveSlack)
	}
	if out.CmdQueue == 0 {
		out.CmdQueue = 32
	}
	if out.CmdQueue < 1 || out.CmdQueue > 1024 {
		return out, fmt.Errorf("server: config: command queue %d outside 1..1024", out.CmdQueue)
	}
	if out.InterpMax == 0 {
		out.InterpMax = 500 * time.Millisecond
	}
	if out.InterpMin < 0 || out.InterpMax < out.InterpMin || out.InterpMax > 2*time.Second {
		return out, fmt.Errorf("server: config: interpolation bounds %v..%v invalid", out.InterpMin, out.InterpMax)
	}
	if len(out.CookieKey) == 0 {
		sum := sha256.Sum256(binary.LittleEndian.AppendUint64([]byte("lagkit address token "), out.Seed))
		out.CookieKey = sum[:]
	}
	if len(out.ConnectKey) != 0 && len(out.ConnectKey) != token.KeySize {
		return out, fmt.Errorf("server: config: connect key of %d bytes, want %d", len(out.ConnectKey), token.KeySize)
	}
	if len(out.ConnectKey) != 0 && out.Epoch.IsZero() {
		return out, errors.New("server: config: a connect key needs an epoch (the wall time of server time zero)")
	}
	if out.TokenWindow < 0 {
		return out, fmt.Errorf("server: config: token window %d negative", out.TokenWindow)
	}
	if out.TokenWindow == 0 {
		out.TokenWindow = 4096
	}
	if out.Timeout == 0 {
		out.Timeout = 10 * time.Second
	}
	if out.Timeout < 0 {
		return out, fmt.Errorf("server: config: timeout %v is negative", out.Timeout)
	}
	if err := out.Limits.withDefaults(out.Timeout); err != nil {
		return out, err
	}
	if out.Policy.Name == "" {
		out.Policy.Name = "tlc"
	}
	if out.ViewTimeTolerance == 0 {
		out.ViewTimeTolerance = 200 * time.Millisecond
	}
	if out.RespawnDelay == 0 {
		out.RespawnDelay = 3 * time.Second
	}
	if out.SpawnProtection == 0 {
		out.SpawnProtection = 5 * time.Second
	}
	if out.AppealRate == 0 {
		out.AppealRate = 10
	}
	if out.Bandwidth == 0 {
		out.Bandwidth = DefaultBandwidth
	}
	if out.Replication.Policy != nil {
		if out.Replication.Heartbeat == 0 {
			out.Replication.Heartbeat = reckoning.DefaultHeartbeat
		}
		if out.Replication.TurnDeg == 0 {
			out.Replication.TurnDeg = 15
		}
		if out.Replication.Heartbeat < 0 || !(out.Replication.TurnDeg > 0 && out.Replication.TurnDeg <= 180) {
			return out, fmt.Errorf("server: config: replication heartbeat %v negative or turn %v outside (0, 180] degrees", out.Replication.Heartbeat, out.Replication.TurnDeg)
		}
	}
	if out.Settings.FOVDeg == 0 {
		out.Settings.FOVDeg = 90
	}
	if out.Settings.FOVDeg < 30 || out.Settings.FOVDeg > 150 {
		return out, fmt.Errorf("server: config: field of view %d outside 30..150 degrees", out.Settings.FOVDeg)
	}
	if d := out.Settings.Display; len(d) > wire.MaxDisplayName || !utf8.ValidString(d) {
		return out, fmt.Errorf("server: config: display mode %q: at most %d bytes of UTF-8", d, wire.MaxDisplayName)
	}
	if f := out.Settings.Feedback; len(f) > wire.MaxFeedbackName || !utf8.ValidString(f) {
		return out, fmt.Errorf("server: config: feedback %q: at most %d bytes of UTF-8", f, wire.MaxFeedbackName)
	}
	if st := out.Settings; !(st.PlaceboMS >= 0 && st.PlaceboMS <= 65535) || !(st.PlaceboScale >= 0 && st.PlaceboScale <= 65.535) {
		return out, fmt.Errorf("server: config: placebo %v ms or scale %v out of range (0 to 65535 ms, 0 to 65.535)", st.PlaceboMS, st.PlaceboScale)
	}
	if err := out.checkDelay(); err != nil {
		return out, err
	}
	if err := out.checkTimeWarp(); err != nil {
		return out, err
	}
	if out.Body != nil && out.BodyOf != nil {
		return out, errors.New("server: config: both Body and BodyOf: set one (BodyOf can return one body for all)")
	}
	if out.Body != nil {
		// The negated test also rejects NaN.
		if r := out.Body.Reach(); !(r <= wire.MaxBodyLocal) {
			return out, fmt.Errorf("server: config: body reaches %g m from its origin: a hit's spot on it travels within wire.MaxBodyLocal (%g m)", r, wire.MaxBodyLocal)
		}
	}
	if err := out.Shape.Check(); err != nil {
		return out, fmt.Errorf("server: config: %w", err)
	}
	if n := out.Shape.SlotCount(); out.MaxClients > n {
		return out, fmt.Errorf("server: config: max clients %d exceed the shape's %d slots", out.MaxClients, n)
	}
	if out.Shots == nil {
		out.Shots = NoShots{}
	}
	if _, named := out.Shots.(Armoury); !named && out.TimeWarpHitscanOnly {
		return out, errors.New("server: config: time warp of hitscan shots only needs a resolver that says which shots are hitscan (an Armoury, as shooter.Weapons is)")
	}
	if out.ViewTimeTolerance < 0 || out.RespawnDelay < 0 || out.SpawnProtection < 0 || !(out.AppealRate > 0 && out.AppealRate <= 1000) {
		return out, fmt.Errorf("server: config: view time tolerance, respawn delay and spawn protection must not be negative, appeal rate in (0, 1000]")
	}
	return out, nil
}
