//go:build js && wasm

// Command wasm is lagkit's browser client core, built with GOOS=js
// GOARCH=wasm: it runs the same client package as native clients and bots
// (see web/bridge) and hands the page a small API through syscall/js.
//
// On start it sets globalThis.lagkitCore to an object with one method,
// create(config), where config is {map: MAP_JSON_TEXT, name, display,
// interpDelayMs, token: BASE64 (a connect token, when the server wants
// one), rejoinSeat, rejoinTeam (the seat and team of the page's session
// on a server it lost, wire.Rejoin; absent or -1: none)}. create returns {error: string} or a session with
// methods (times are the page's clock in milliseconds, performance.now()):
//
//	connect(now)
//	step(now, datagram Uint8Array) -> error string or ""
//	tick(now, forward, side, up, yaw, pitch, buttons, weapon, placed)
//	                               the input as numbers: buttons is fire 1 | alt 2 | jump 4 | crouch 8 | reload 16 | sprint 32;
//	                               placed, when given, how many placements the page's aim has turned to
//	frame(now, forward, side, up, yaw, pitch, buttons, weapon, placed)
//	                               the input at a display frame between ticks: a fire press carries its instant and aim (sub-tick input)
//	tickMs() -> the server's tick in ms (0 until accepted)
//	outbox() -> Array of Uint8Array datagrams to send
//	pack(now, buf Uint8Array) -> bytes written into buf: the frame's hot part, packed (bridge.Session.Pack; buf holds bridge.PackSize bytes)
//	info(now) -> JSON text of bridge.Session.Info: the rest (events, net graph, scoreboard, settings);
//	                               score.rows is null when unchanged since the session's last info
//	packSize() -> bridge.PackSize
//	disconnect(reason)
//	reportSBC() -> error string or "": the "shot behind cover" report
package main

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"slices"
	"time"

	"syscall/js"

	"github.com/lagkit/lagkit/web/bridge"
	"github.com/lagkit/lagkit/wire"
)

func main() {
	core := js.Global().Get("Object").New()
	core.Set("create", js.FuncOf(create))
	// The layout of the packed frames its sessions write: the page
	// refuses a core whose layout it does not read.
	core.Set("packVersion", bridge.PackVersion)
	js.Global().Set("lagkitCore", core)
	select {} // keep the Go side alive for the callbacks
}

func errObj(err error) js.Value {
	o := js.Global().Get("Object").New()
	o.Set("error", err.Error())
	return o
}

func create(_ js.Value, args []js.Value) any {
	if len(args) != 1 || args[0].Type() != js.TypeObject {
		return errObj(errString("create wants one config object"))
	}
	a := args[0]
	cfg := bridge.Config{
		MapJSON: []byte(str(a, "map")),
		Name:    str(a, "name"),
		Display: str(a, "display"),
	}
	if t := str(a, "token"); t != "" {
		tok, err := base64.StdEncoding.DecodeString(t)
		if err != nil {
			return errObj(errString("token is not base64: " + err.Error()))
		}
		cfg.Token = tok
	}
	if ms := num(a, "interpDelayMs"); ms > 0 {
		cfg.InterpDelay = time.Duration(ms * float64(time.Millisecond))
	}
	if seat, team := a.Get("rejoinSeat"), num(a, "rejoinTeam"); seat.Type() == js.TypeNumber && seat.Int() >= 0 && seat.Int() < wire.MaxEntities && team >= 0 && team < 256 {
		cfg.Rejoin = wire.Rejoin{Asked: true, Seat: uint8(seat.Int()), Team: uint8(team)}
	}
	s, err := bridge.New(cfg)
	if err != nil {
		return errObj(err)
	}
	return session(s)
}

type errString string

func (e errString) Error() string { return string(e) }

func str(v js.Value, key string) string {
	if f := v.Get(key); f.Type() == js.TypeString {
		return f.String()
	}
	return ""
}

func num(v js.Value, key string) float64 {
	if f := v.Get(key); f.Type() == js.TypeNumber {
		return f.Float()
	}
	return 0
}

// ms reads a page time in milliseconds as a Duration; anything that is not
// a finite number reads as 0.
func ms(args []js.Value) time.Duration {
	if len(args) == 0 || args[0].Type() != js.TypeNumber {
		return 0
	}
	v := args[0].Float()
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return time.Duration(v * float64(time.Millisecond))
}

// Buttons of the input's buttons argument.
const (
	btnFire = 1 << iota
	btnAlt
	btnJump
	btnCrouch
	btnReload
	btnSprint
)

// input reads the input of a tick or frame call: its arguments after
// now, numbers read without a call into JavaScript (a number is held in
// the js.Value itself), where an object's twelve fields took twelve
// property reads each, on every frame and tick of a core on the page's
// thread. A missing or non-number argument reads as 0.
func input(args []js.Value) bridge.Input {
	at := func(i int) float64 {
		if i < len(args) && args[i].Type() == js.TypeNumber {
			return args[i].Float()
		}
		return 0
	}
	b := int(at(6))
	// placed, when given, is how many placements the page's aim has
	// turned to (bridge.Input.Follows).
	placed := len(args) > 8 && args[8].Type() == js.TypeNumber
	return bridge.Input{
		Follows: placed, Placed: int(at(8)),
		Forward: at(1), Side: at(2), Up: at(3), Yaw: at(4), Pitch: at(5),
		Fire: b&btnFire != 0, Alt: b&btnAlt != 0, Jump: b&btnJump != 0, Crouch: b&btnCrouch != 0,
		Reload: b&btnReload != 0, Sprint: b&btnSprint != 0,
		Weapon: int(at(7)),
	}
}

func session(s *bridge.Session) js.Value {
	o := js.Global().Get("Object").New()
	// One byte more than a datagram may hold tells a longer one.
	buf := make([]byte, wire.MaxDatagram+1)
	// The constructors outbox uses, looked up once.
	arrayCtor, u8Ctor := js.Global().Get("Array"), js.Global().Get("Uint8Array")
	none := arrayCtor.New(0)
	method := func(name string, f func(args []js.Value) any) {
		o.Set(name, js.FuncOf(func(_ js.Value, args []js.Value) any { return f(args) }))
	}
	method("connect", func(args []js.Value) any { s.Connect(ms(args)); return nil })
	method("disconnect", func(args []js.Value) any {
		reason := "client left"
		if len(args) > 0 && args[0].Type() == js.TypeString {
			reason = args[0].String()
		}
		s.Disconnect(reason)
		return nil
	})
	method("step", func(args []js.Value) any {
		if len(args) < 2 || args[1].Type() != js.TypeObject {
			return "step wants (now, Uint8Array)"
		}
		n := js.CopyBytesToGo(buf, args[1])
		if n > wire.MaxDatagram {
			return "datagram longer than the wire's limit"
		}
		if err := s.Step(ms(args), buf[:n]); err != nil {
			return err.Error()
		}
		return ""
	})
	method("tick", func(args []js.Value) any {
		s.Tick(ms(args), input(args))
		return nil
	})
	method("frame", func(args []js.Value) any {
		s.Frame(ms(args), input(args))
		return nil
	})
	method("reportSBC", func([]js.Value) any {
		if err := s.ReportSBC(); err != nil {
			return err.Error()
		}
		return ""
	})
	method("tickMs", func([]js.Value) any { return float64(s.TickDuration()) / float64(time.Millisecond) })
	method("outbox", func([]js.Value) any {
		out := s.Outbox()
		if len(out) == 0 {
			return none
		}
		arr := arrayCtor.New(len(out))
		for i, b := range out {
			a := u8Ctor.New(len(b))
			js.CopyBytesToJS(a, b)
			arr.SetIndex(i, a)
		}
		return arr
	})
	packed := make([]byte, bridge.PackSize)
	method("pack", func(args []js.Value) any {
		if len(args) < 2 || args[1].Type() != js.TypeObject {
			return 0
		}
		n := s.Pack(ms(args), packed)
		if js.CopyBytesToJS(args[1], packed[:n]) < n {
			return 0 // a buffer shorter than packSize()
		}
		return n
	})
	method("packSize", func([]js.Value) any { return len(packed) })
	// rows are the scoreboard's rows of the last info that carried them.
	var rows []bridge.ScoreRow
	method("info", func(args []js.Value) any {
		st := s.Info(ms(args))
		// The rows, unchanged, are left out (null): 64 players' rows were
		// most of an info's JSON, made and parsed about every frame
		// (an event waits nearly always), while they change about once
		// a second.
		if rows != nil && slices.Equal(st.Score.Rows, rows) {
			st.Score.Rows = nil
		} else {
			rows = st.Score.Rows
		}
		b, err := json.Marshal(st)
		if err != nil {
			return "{}"
		}
		return string(b)
	})
	return o
}
