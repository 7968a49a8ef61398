// Command arena2d plays the arena, a top-down 2D game built on lagkit's
// netcode, in a window (Ebitengine), on a server that arena2d-server
// runs:
//
//	arena2d-server -listen 127.0.0.1:4000 -bots 2
//	arena2d -connect udp://127.0.0.1:4000
//
// Built with GOOS=js GOARCH=wasm it is the same game in a browser tab,
// on the page arena2d-server serves with -web, over WebSocket.
//
// Keys: WASD run, the mouse aims, the left button shoots, space dashes,
// Q blinks, E uses the item, R reloads.
package main

import (
	"context"
	"fmt"
	"image/color"
	"math"
	"sync"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/ebitenutil"
	"github.com/hajimehoshi/ebiten/v2/vector"
	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/examples/arena2d/arena"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/realtime"
	"github.com/lagkit/lagkit/transport"
)

// Screen geometry: pixels per metre, and the window's size.
const (
	scale = 18
	side  = 800
)

// screenPos is where world point p is drawn.
func screenPos(p geom.Vec3) (float32, float32) {
	return float32(side/2 + p.X*scale), float32(side/2 - p.Y*scale)
}

// human is the player at the window: Update records the keys and the
// mouse, the client's goroutine turns them into commands (Input) and
// leaves what to draw.
type human struct {
	mu               sync.Mutex
	dx, dy           float64
	aimX, aimY       float64 // the mouse, in world metres
	fire, dash       bool
	blink, use, rld  bool
	me               game.PlayerState
	shown            geom.Vec3
	others           []game.PlayerState
	crate            game.PlayerState
	hasCrate, broken bool
	connected        bool
	// tracers are the others' shots the server told of, drawn until
	// their time is up.
	tracers []tracer
	// What the client core says of the session, for the screen and,
	// through onTick, for a page's scripts.
	state State
	// onTick, if set, is called with the state after each tick's
	// input, the lock held.
	onTick func(State)
	// stats is what the real-time driver measured: it takes the
	// prediction errors from the client core.
	stats realtime.LiveStats
}

// State is what the client shows of itself: in a browser, as JSON from
// arena2d.state().
type State struct {
	Phase string `json:"phase"`
	ID    int    `json:"id"`
	URL   string `json:"url"`
	// Snapshots counts the snapshots received.
	Snapshots int `json:"snapshots"`
	// Predicting is whether the client predicts its own player;
	// Predictions counts the predictions the server's snapshots
	// checked, PredErrorMaxM is the largest position error among them
	// (metres), ValueErrors how many had a field of the arena's state
	// wrong that only the player's own step changes (all but the shield
	// and the item, which the server grants).
	Predicting    bool    `json:"predicting"`
	Predictions   int     `json:"predictions"`
	PredErrorMaxM float64 `json:"pred_error_max_m"`
	ValueErrors   int     `json:"value_errors"`
	// Pos is the predicted position, Stamina, Health and Ammo the
	// player's.
	Pos     [2]float64 `json:"pos"`
	Stamina int        `json:"stamina"`
	Health  int        `json:"health"`
	Ammo    int        `json:"ammo"`
	// Others counts the other players drawn, Crate whether the crate is,
	// Broken whether it broke.
	Others int  `json:"others"`
	Crate  bool `json:"crate"`
	Broken bool `json:"broken"`
}

// tracer is another player's shot drawn as a line until until.
type tracer struct {
	from, to geom.Vec3
	until    time.Duration
}

// tracerShown is how long a tracer is drawn.
const tracerShown = 150 * time.Millisecond

// Observe takes in what the client was told (bot.Observer): the crate's
// end, which the player salutes, the others' shots to draw, and the
// predictions the server's snapshots checked.
func (h *human) Observe(now time.Duration, c *client.Client, r *client.Ready) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, e := range r.Tracers {
		h.tracers = append(h.tracers, tracer{from: e.From, to: e.To, until: now + tracerShown})
	}
	for _, ev := range r.GameEvents {
		if ev.Kind == arena.EventCrateBroken {
			h.broken = true
			c.SendEvent(arena.EventGG, nil)
		}
	}
	st := &h.state
	for _, m := range r.Mispredictions {
		if m.Field == "Stamina" || m.Field == "DashWait" || m.Field == "Ammo" || m.Field == "Reload" || m.Field == "BlinkWait" {
			st.ValueErrors += m.Wrong
		}
	}
	st.Predictions += r.Predictions
}

// Input implements realtime.Brain.
func (h *human) Input(now time.Duration, c *client.Client) game.UserCmd {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.connected = c.Phase() == client.Connected
	h.me, h.shown = c.Predicted(), c.DisplayPos()
	live := h.tracers[:0]
	for _, tr := range h.tracers {
		if tr.until > now {
			live = append(live, tr)
		}
	}
	h.tracers = live
	st := &h.state
	st.PredErrorMaxM = h.stats.Get().PredErrMaxM
	view := c.ViewTime(now)
	h.others = h.others[:0]
	h.hasCrate = false
	for _, id := range c.RemoteIDs(nil) {
		st, ok := c.Remote(id, view)
		switch {
		case !ok:
		case id == arena.CrateSlot:
			h.crate, h.hasCrate = st, true
		default:
			h.others = append(h.others, st)
		}
	}
	st.Phase, st.ID, st.Snapshots, st.Predicting = phaseName(c.Phase()), c.ID(), c.Stats().SnapshotsReceived, c.Predicting()
	st.Pos = [2]float64{h.me.Pos.X, h.me.Pos.Y}
	a := arena.Decl.Get(&h.me)
	st.Stamina, st.Health, st.Ammo = int(a.Stamina), int(h.me.Health), int(a.Ammo)
	st.Others, st.Crate, st.Broken = len(h.others), h.hasCrate, h.broken
	if h.onTick != nil {
		h.onTick(*st)
	}
	yaw := arena.YawTo(h.me.Pos, geom.V(h.aimX, h.aimY, 0))
	cmd := game.UserCmd{Yaw: yaw}
	cmd.Forward, cmd.Side = arena.Move(h.dx, h.dy, yaw)
	if h.fire {
		cmd.Buttons |= game.BtnFire
	}
	// The blink goes as far as the mouse points.
	arena.CmdDecl.Of(&cmd).Reach = float32(min(arena.BlinkLength, math.Hypot(h.aimX-h.me.Pos.X, h.aimY-h.me.Pos.Y)))
	for _, b := range []struct {
		held bool
		btn  game.Buttons
	}{{h.dash, arena.BtnDash}, {h.blink, arena.BtnBlink}, {h.use, arena.BtnUse}, {h.rld, game.BtnReload}} {
		if b.held {
			cmd.Buttons |= b.btn
		}
	}
	return cmd
}

// window is the ebiten game. It starts the session (start) at its
// first update, once the graphics are up: a browser's WebAssembly
// client runs on the page's one thread, and WebGL's start-up there can
// take seconds on a loaded machine, longer than the server waits for a
// new connection's Connect (realtime.DefaultHandshakeLimits). The
// session's end (done) with an error ends the game with it, so the
// page sees the reason (arena2d.error) instead of a client that never
// ticks.
type window struct {
	h       *human
	start   func()
	started bool
	done    chan error
	ended   bool
	result  error // the session's, once ended
}

func (w *window) Update() error {
	if !w.started {
		w.started = true
		w.start()
	}
	if !w.ended {
		select {
		case err := <-w.done:
			w.ended, w.result = true, err
		default:
		}
	}
	if w.result != nil {
		return w.result
	}
	h := w.h
	h.mu.Lock()
	defer h.mu.Unlock()
	h.dx, h.dy = 0, 0
	if ebiten.IsKeyPressed(ebiten.KeyW) {
		h.dy++
	}
	if ebiten.IsKeyPressed(ebiten.KeyS) {
		h.dy--
	}
	if ebiten.IsKeyPressed(ebiten.KeyD) {
		h.dx++
	}
	if ebiten.IsKeyPressed(ebiten.KeyA) {
		h.dx--
	}
	mx, my := ebiten.CursorPosition()
	h.aimX, h.aimY = (float64(mx)-side/2)/scale, (side/2-float64(my))/scale
	h.fire = ebiten.IsMouseButtonPressed(ebiten.MouseButtonLeft)
	h.dash = ebiten.IsKeyPressed(ebiten.KeySpace)
	h.blink, h.use, h.rld = ebiten.IsKeyPressed(ebiten.KeyQ), ebiten.IsKeyPressed(ebiten.KeyE), ebiten.IsKeyPressed(ebiten.KeyR)
	return nil
}

func (w *window) Draw(screen *ebiten.Image) {
	h := w.h
	h.mu.Lock()
	defer h.mu.Unlock()
	screen.Fill(color.RGBA{24, 26, 32, 255})
	for _, b := range arena.Map().Boxes {
		x0, y1 := screenPos(b.Min)
		x1, y0 := screenPos(b.Max)
		vector.DrawFilledRect(screen, x0, y0, x1-x0, y1-y0, color.RGBA{90, 90, 100, 255}, false)
	}
	if h.hasCrate {
		x, y := screenPos(h.crate.Pos)
		s := float32(arena.CrateHalf * scale)
		vector.DrawFilledRect(screen, x-s, y-s, 2*s, 2*s, color.RGBA{170, 120, 60, 255}, false)
		hp := float32(arena.Decl.Of(&h.crate).HP) / arena.CrateHealth
		vector.DrawFilledRect(screen, x-s, y-s-6, 2*s*hp, 3, color.RGBA{80, 220, 80, 255}, false)
	}
	for _, o := range h.others {
		x, y := screenPos(o.Pos)
		vector.DrawFilledCircle(screen, x, y, arena.Radius*scale, color.RGBA{220, 80, 80, 255}, true)
	}
	for _, tr := range h.tracers {
		x0, y0 := screenPos(tr.from)
		x1, y1 := screenPos(tr.to)
		vector.StrokeLine(screen, x0, y0, x1, y1, 1, color.RGBA{250, 230, 150, 255}, true)
	}
	x, y := screenPos(h.shown)
	vector.DrawFilledCircle(screen, x, y, arena.Radius*scale, color.RGBA{80, 160, 240, 255}, true)
	st := float32(arena.Decl.Of(&h.me).Stamina) / arena.MaxStamina
	vector.DrawFilledRect(screen, 10, side-20, 200*st, 8, color.RGBA{240, 200, 60, 255}, false)
	msg := "connecting..."
	switch {
	case h.broken:
		msg = "the crate is broken"
	case h.connected:
		msg = "shoot the crate"
	}
	ebitenutil.DebugPrint(screen, fmt.Sprintf("%s\nhealth %d, %d snapshots, prediction error up to %.3f m",
		msg, h.me.Health, h.state.Snapshots, h.state.PredErrorMaxM))
}

func (w *window) Layout(int, int) (int, int) { return side, side }

// play opens the window (in a browser, the page's canvas) and plays on
// the server at url until the window closes or ctx ends; onTick, if not
// nil, hears the client's state after each tick.
func play(ctx context.Context, url, name string, onTick func(State)) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	h := &human{state: State{URL: url}, onTick: onTick}
	w := &window{h: h, done: make(chan error, 1)}
	w.start = func() {
		go func() {
			conn, err := transport.Dial(ctx, url, transport.DialOptions{})
			if err == nil {
				_, err = realtime.RunClient(ctx, conn, realtime.ClientConfig{Client: arena.ClientConfig(name), Brain: h, Stats: &h.stats})
			}
			w.done <- err
		}()
	}
	ebiten.SetWindowSize(side, side)
	ebiten.SetWindowTitle("arena2d")
	if err := ebiten.RunGame(w); err != nil {
		return err
	}
	cancel()
	switch {
	case !w.started:
		return nil
	case w.ended:
		return w.result
	}
	return <-w.done
}

// phaseName names a session phase.
func phaseName(p client.Phase) string {
	switch p {
	case client.Idle:
		return "idle"
	case client.Connecting:
		return "connecting"
	case client.Connected:
		return "connected"
	default:
		return "closed"
	}
}
