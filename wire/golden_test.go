package wire

import (
	"bytes"
	"encoding/hex"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/shooter/weapon"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// goldenSnapshots returns the snapshots of the golden vectors: a
// full snapshot and one delta encoded against it.
func goldenSnapshots() (base, delta *Snapshot) {
	base = &Snapshot{
		Tick: 640, LastCmd: 1200, EchoClientTime: 10 * time.Second, EchoHold: 2500 * time.Microsecond,
		FirstEventSeq: 7,
		Self: weapon.With(game.PlayerState{Pos: geom.V(1.5, -2.25, 0), Vel: geom.V(4, 0, 0), Yaw: 16384, Pitch: -100,
			Flags: game.FlagOnGround, Teleport: 1, Health: 100}, weapon.Arms{Ammo: 30, Heat: 2, Wait: 62500 * time.Microsecond, Weapon: 1}),
		Events: []Event{{Seq: 8, Kind: 3, Data: []byte("hit")}},
	}
	base.SetSlots(MaxEntities)
	base.SetGame(weapon.Layout) // lagkit's own game's declared state
	for i, e := range []EntityState{
		{X: 1024, Y: -512, Yaw: 100, Flags: game.FlagOnGround, VX: 2048, VY: -1024},
		{X: -7000, Y: 300, Z: 512, Yaw: 40000, Pitch: 300, Flags: game.FlagCrouched, Teleport: 2},
		{X: 5, Y: 5, Z: 5, Stamp: 600},
	} {
		base.Entities[i*3+1] = e
		base.SetPresent(i*3+1, true)
	}
	delta = cloneSnapshot(base)
	delta.Tick, delta.Baseline, delta.LastCmd = 646, 640, 1206
	delta.Self.Pos.X += 6 * 4.0 / 64
	delta.Self.Health = 75
	weapon.ArmsOf(&delta.Self).Ammo = 29
	weapon.ArmsOf(&delta.Self).Wait = 0
	weapon.ArmsOf(&delta.Self).Weapon = 3
	delta.Events = nil
	delta.FirstEventSeq = 8
	delta.Entities[1].X += 120
	delta.Entities[1].Yaw = 120
	delta.Entities[4].Teleport = 3
	delta.SetPresent(7, false)
	delta.Entities[7] = EntityState{}
	delta.Entities[200] = EntityState{X: 1, Y: 2, Z: 3}
	delta.SetPresent(200, true)
	return base, delta
}

// golden is one message of the golden vectors: encode returns its bytes,
// check decodes b and compares it with the message.
type golden struct {
	name   string
	encode func() ([]byte, error)
	check  func(b []byte) (got, want any, err error)
}

func goldens() []golden {
	msg := func(name string, m any, enc func() ([]byte, error), dec func([]byte) (any, error)) golden {
		return golden{name, enc, func(b []byte) (any, any, error) {
			got, err := dec(b)
			return got, m, err
		}}
	}
	connect := Connect{Version: Version, Nonce: 0x0123456789abcdef, Token: "\x00\x01\xfe\xff", Name: "alice", SnapshotRate: 64, InterpDelay: 100 * time.Millisecond, Key: strings.Repeat("\x5a", KeySize)}
	challenge := Challenge{Nonce: 0x0123456789abcdef, Token: "\x00\x01\xfe\xff", Key: strings.Repeat("\xa5", KeySize)}
	accept := Accept{ClientID: 5, TickRate: 64, Tick: 123456, Map: "metro"}
	reject := Reject{Reason: "server full"}
	disconnect := Disconnect{Nonce: 0x0123456789abcdef, Reason: "bye"}
	commands := Commands{AckTick: 640, AckDelay: 4 * time.Millisecond, ClientTime: 90 * time.Second, Cmds: pressed(1000, 4)}
	sighted := commands
	sighted.Sightings = []Sighting{{Shooter: 3, ShotTick: 997, Part: game.PartHead, SBC: true}, {Shooter: 7, ShotTick: 1001, Part: game.PartLegR}}
	appeal := Appeal{ID: 0x01020304, Deny: true, State: game.PlayerState{Pos: geom.V(-3.5, 12.25, 1), Vel: geom.V(0, -4, 0),
		Yaw: 49152, Pitch: 200, Flags: game.FlagOnGround | game.FlagCrouched, Teleport: 4, Health: 75}}
	hit := HitEvent{Shooter: 3, ShotTick: 1203, Part: game.PartHead, Damage: 50, Local: geom.V(0.125, -0.0625, 1.5),
		ShooterEye: geom.V(10.5, -4.25, 1.65234375), Appeal: 17, Deadline: 20*time.Second + 100*time.Millisecond}
	// A hit at the far end of a game's body 6 m long: the far code.
	farHit := HitEvent{Shooter: 3, ShotTick: 1203, Part: 2, Damage: 40, Local: geom.V(5.875, -0.5, 1.25),
		ShooterEye: geom.V(10.5, -4.25, 1.65234375), Appeal: 18, Deadline: 20*time.Second + 100*time.Millisecond, OnBody: true}
	report, rewind := goldenReport(), goldenRewind()
	named, placed, served := nameEvents()[1], placeEvents()[1], serverEvents()[1]
	base, delta := goldenSnapshots()
	snapshot := func(s, base *Snapshot) golden {
		want := cloneSnapshot(s)
		return golden{"", func() ([]byte, error) { return AppendSnapshot(nil, cloneSnapshot(s), base, MaxDatagram) },
			func(b []byte) (any, any, error) {
				got := Snapshot{Game: s.Game} // the session's
				if err := DecodeSnapshot(b, &got, baselineOf(base)); err != nil {
					return nil, nil, err
				}
				if d := diffSnapshot(&got, want); d != "" {
					return d, "", nil
				}
				return "", "", nil
			}}
	}
	full, del := snapshot(base, nil), snapshot(delta, base)
	full.name, del.name = "snapshot_full", "snapshot_delta"
	return []golden{
		msg("connect", connect, func() ([]byte, error) { return AppendConnect(nil, &connect) },
			func(b []byte) (any, error) { var m Connect; err := DecodeConnect(b, &m); return m, err }),
		msg("challenge", challenge, func() ([]byte, error) { return AppendChallenge(nil, &challenge) },
			func(b []byte) (any, error) { var m Challenge; err := DecodeChallenge(b, &m); return m, err }),
		msg("accept", accept, func() ([]byte, error) { return AppendAccept(nil, &accept) },
			func(b []byte) (any, error) { var m Accept; err := DecodeAccept(b, &m); return m, err }),
		msg("reject", reject, func() ([]byte, error) { return AppendReject(nil, &reject) },
			func(b []byte) (any, error) { var m Reject; err := DecodeReject(b, &m); return m, err }),
		msg("disconnect", disconnect, func() ([]byte, error) { return AppendDisconnect(nil, &disconnect) },
			func(b []byte) (any, error) { var m Disconnect; err := DecodeDisconnect(b, &m); return m, err }),
		msg("commands", commands, func() ([]byte, error) { return AppendCommands(nil, &commands) },
			func(b []byte) (any, error) { var m Commands; err := DecodeCommands(b, &m); return m, err }),
		msg("commands_sightings", sighted, func() ([]byte, error) { return AppendCommands(nil, &sighted) },
			func(b []byte) (any, error) { var m Commands; err := DecodeCommands(b, &m); return m, err }),
		msg("appeal", appeal, func() ([]byte, error) { return AppendAppeal(nil, &appeal) },
			func(b []byte) (any, error) { var m Appeal; err := DecodeAppeal(b, &m); return m, err }),
		msg("hit_event", hit, func() ([]byte, error) { return AppendHitEvent(nil, &hit) },
			func(b []byte) (any, error) { var e HitEvent; err := DecodeHitEvent(b, &e); return e, err }),
		msg("hit_event_far", farHit, func() ([]byte, error) { return AppendHitEvent(nil, &farHit) },
			func(b []byte) (any, error) { var e HitEvent; err := DecodeHitEvent(b, &e); return e, err }),
		msg("report", report, func() ([]byte, error) { return AppendReport(nil, &report) },
			func(b []byte) (any, error) { var m Report; err := DecodeReport(b, &m); return m, err }),
		msg("rewind_event", rewind, func() ([]byte, error) { return AppendRewindEvent(nil, &rewind) },
			func(b []byte) (any, error) { var e RewindEvent; err := DecodeRewindEvent(b, &e); return e, err }),
		msg("name_event", named, func() ([]byte, error) { return AppendNameEvent(nil, &named) },
			func(b []byte) (any, error) { var e NameEvent; err := DecodeNameEvent(b, &e); return e, err }),
		msg("place_event", placed, func() ([]byte, error) { return AppendPlaceEvent(nil, &placed) },
			func(b []byte) (any, error) { var e PlaceEvent; err := DecodePlaceEvent(b, &e); return e, err }),
		msg("server_event", served, func() ([]byte, error) { return AppendServerEvent(nil, &served) },
			func(b []byte) (any, error) { var e ServerEvent; err := DecodeServerEvent(b, &e); return e, err }),
		full, del,
	}
}

// TestGolden checks the encodings against testdata/NAME.hex, so that a
// change of the wire format cannot go unnoticed; run with -update to
// rewrite them after an intended change (and bump Version).
func TestGolden(t *testing.T) {
	for _, g := range goldens() {
		t.Run(g.name, func(t *testing.T) {
			b, err := g.encode()
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", g.name+".hex")
			if *update {
				if err := os.WriteFile(path, []byte(formatHex(b)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			text, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want, err := hex.DecodeString(strings.Join(strings.Fields(string(text)), ""))
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if !bytes.Equal(b, want) {
				t.Errorf("encoding changed:\ngot  %x\nwant %x", b, want)
			}
			got, wantMsg, err := g.check(want)
			if err != nil {
				t.Fatalf("decoding %s: %v", path, err)
			}
			if !reflect.DeepEqual(got, wantMsg) {
				t.Errorf("decoding %s: got %+v, want %+v", path, got, wantMsg)
			}
		})
	}
}

// formatHex returns b in hex, 32 bytes a line.
func formatHex(b []byte) string {
	var sb strings.Builder
	for len(b) > 0 {
		n := min(len(b), 32)
		sb.WriteString(hex.EncodeToString(b[:n]))
		sb.WriteByte('\n')
		b = b[n:]
	}
	return sb.String()
}

// TestDecodersRejectTruncated cuts every golden vector short at every
// length: each decoder must return an error, never panic.
func TestDecodersRejectTruncated(t *testing.T) {
	for _, g := range goldens() {
		b, err := g.encode()
		if err != nil {
			t.Fatal(err)
		}
		for n := range len(b) {
			if _, _, err := g.check(b[:n]); err == nil {
				t.Errorf("%s cut to %d of %d bytes: no error", g.name, n, len(b))
			}
		}
	}
}

// TestDecodersSurviveGarbage feeds every decoder seeded random datagrams
// (with a valid type byte, so that they get past the first check); the
// fuzz targets do the same at length.
func TestDecodersSurviveGarbage(t *testing.T) {
	base, _ := goldenSnapshots()
	rng := rand.New(rand.NewPCG(4, 4))
	b := make([]byte, MaxDatagram)
	for range 20000 {
		b := b[:1+rng.IntN(64)<<rng.IntN(5)]
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		b[0] = byte(MsgConnect + MsgType(rng.IntN(7)))
		_ = DecodeConnect(b, new(Connect))
		_ = DecodeAccept(b, new(Accept))
		_ = DecodeReject(b, new(Reject))
		_ = DecodeDisconnect(b, new(Disconnect))
		_ = DecodeCommands(b, new(Commands))
		_ = DecodeSnapshot(b, new(Snapshot), baselineOf(base))
		_ = DecodeAppeal(b, new(Appeal))
		_ = DecodeHitEvent(b, new(HitEvent))
		_ = DecodeConfirmEvent(b, new(ConfirmEvent))
		_ = DecodeVerdictEvent(b, new(VerdictEvent))
		_ = DecodeKillEvent(b, new(KillEvent))
	}
}
