package server

import (
	"math"
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/geom"
	"github.com/lagkit/lagkit/shooter/mode"
	"github.com/lagkit/lagkit/wire"
)

// joinAs connects peer under name with session nonce and returns its
// slot, or -1 with the reason when the server rejects it.
func joinAs(t *testing.T, s *Server, now time.Duration, peer Peer, nonce uint64, name string) (int, string) {
	t.Helper()
	m := wire.Connect{Version: wire.Version, Nonce: nonce, Name: name, InterpDelay: 100 * time.Millisecond}
	var ch wire.Challenge
	if reply := connectTo(t, s, now, peer, &m); wire.DecodeChallenge(reply, &ch) != nil {
		t.Fatalf("want a challenge, got %x", reply)
	}
	m.Token = ch.Token
	reply := connectTo(t, s, now, peer, &m)
	var a wire.Accept
	if wire.DecodeAccept(reply, &a) == nil {
		return int(a.ClientID), ""
	}
	var r wire.Reject
	if wire.DecodeReject(reply, &r) != nil {
		t.Fatalf("want an accept or a reject, got %x", reply)
	}
	return -1, r.Reason
}

// seatedDuel is the duel of badinput_test.go with its two players
// placed by identity: alice (peer 1) in slot 3 on team 1, bob (peer 2)
// in slot 5 on team 0; anyone else but mallory takes a free slot.
func seatedDuel(t *testing.T, cfg Config) *duel {
	t.Helper()
	cfg.MaxClients = 8
	cfg.Seat = func(who Identity) Placement {
		switch who.Player {
		case "alice":
			return Placement{Slot: 3, Team: 1}
		case "bob":
			return Placement{Slot: 5, Team: 0}
		case "mallory":
			return Placement{Refuse: "no seat for mallory"}
		}
		return Placement{Slot: -1, Team: -1}
	}
	d := &duel{t: t, s: testServer(t, cfg), next: map[Peer]uint32{}, cmd: map[Peer]game.UserCmd{},
		events: map[Peer]uint32{}, hits: map[Peer][]wire.HitEvent{}, rewinds: map[Peer][]wire.RewindEvent{},
		ackLag: map[Peer]uint32{}, claim: map[Peer]time.Duration{}, silent: map[Peer]bool{}, snaps: map[Peer]*[snapRing]wire.Snapshot{}}
	for i, name := range []string{"alice", "bob"} {
		peer := Peer(i + 1)
		if slot, why := joinAs(t, d.s, d.s.Time(), peer, 1, name); slot != 3+2*i {
			t.Fatalf("%s got slot %d (%s), want %d", name, slot, why, 3+2*i)
		}
		d.peers = append(d.peers, peer)
		d.next[peer], d.events[peer] = 1, 1
	}
	d.s.Place(3, geom.V(0, 0, 0), 0)
	d.s.Place(5, geom.V(20, 0, 0), math.Pi)
	d.cmd[1] = game.UserCmd{Pitch: game.PitchUnits(math.Atan2(1.13-1.65, 20))}
	d.cmd[2] = game.UserCmd{Yaw: game.YawUnits(math.Pi)}
	d.run(500 * time.Millisecond)
	return d
}

// killBob has alice fire at bob until bob has died once more.
func (d *duel) killBob() {
	d.t.Helper()
	before, _ := d.s.Client(5)
	for range 40 {
		d.shoot(nil)
		d.run(120 * time.Millisecond)
		if c, _ := d.s.Client(5); c.Deaths > before.Deaths {
			return
		}
	}
	d.t.Fatal("bob never died")
}

// leave ends peer's session as a closed connection does, and forgets it.
func (d *duel) leave(peer Peer) {
	slot, ok := d.s.ClientByPeer(peer)
	if !ok {
		d.t.Fatalf("peer %d has no session", peer)
	}
	d.s.Kick(slot, "")
	d.s.Ready()
	d.peers = d.peers[:1]
}

// TestRejoinKeepsSeatTeamAndStatistics: a player who drops and connects
// again, from another address, gets the same slot and team and the
// statistics it had, and what happened before the drop is not counted
// again.
func TestRejoinKeepsSeatTeamAndStatistics(t *testing.T) {
	d := seatedDuel(t, Config{Rules: modeRules(mode.Config{Mode: mode.TDM})})
	d.killBob()
	alice, _ := d.s.Client(3)
	bob, _ := d.s.Client(5)
	if alice.Kills != 1 || bob.Deaths != 1 || alice.Team != 1 || bob.Team != 0 {
		t.Fatalf("before the drop: alice %d kills team %d, bob %d deaths team %d", alice.Kills, alice.Team, bob.Deaths, bob.Team)
	}
	teamScore := d.s.Rules().TeamScore()
	d.leave(2)
	if kept, ok := d.s.TallyOf("bob"); !ok || kept.Deaths != 1 || kept.HitsTaken != bob.HitsTaken {
		t.Fatalf("kept for bob: %+v, %v; want 1 death, %d hits taken", kept, ok, bob.HitsTaken)
	}
	d.run(2 * time.Second)
	// Someone else connecting meanwhile does not take bob's slot.
	carol, _ := joinAs(t, d.s, d.s.Time(), 9, 1, "carol")
	if carol == 5 || carol < 0 {
		t.Fatalf("carol got slot %d", carol)
	}
	d.s.Place(carol, geom.V(0, 30, 0), 0) // out of alice's line of fire
	slot, why := joinAs(t, d.s, d.s.Time(), 7, 1, "bob")
	if slot != 5 {
		t.Fatalf("bob rejoined in slot %d (%s), want 5", slot, why)
	}
	d.peers = append(d.peers, 7)
	d.next[7], d.events[7] = 1, 1
	d.cmd[7] = d.cmd[2]
	again, _ := d.s.Client(5)
	if again.Team != 0 || again.Deaths != 1 || again.Kills != 0 || again.HitsTaken != bob.HitsTaken || again.Score != bob.Score {
		t.Fatalf("bob back: %+v, want team 0, 1 death, %d hits taken, score %d", again, bob.HitsTaken, bob.Score)
	}
	if now, _ := d.s.Client(3); now.Kills != 1 || d.s.Rules().TeamScore() != teamScore {
		t.Fatalf("after the rejoin alice has %d kills, team score %v; want 1 and %v", now.Kills, d.s.Rules().TeamScore(), teamScore)
	}
	d.s.Place(5, geom.V(20, 0, 0), math.Pi)
	d.run(5 * time.Second) // past the spawn protection
	d.s.Place(5, geom.V(20, 0, 0), math.Pi)
	d.killBob()
	if bob, _ := d.s.Client(5); bob.Deaths != 2 {
		t.Fatalf("bob died twice in all, has %d deaths", bob.Deaths)
	}
	if alice, _ := d.s.Client(3); alice.Kills != 2 {
		t.Fatalf("alice killed twice in all, has %d kills", alice.Kills)
	}
}

// TestRejoinBeforeTimeout: a player back while its old session has not
// yet timed out takes that session's slot over with its statistics.
func TestRejoinBeforeTimeout(t *testing.T) {
	d := seatedDuel(t, Config{})
	d.killBob()
	slot, _ := joinAs(t, d.s, d.s.Time(), 8, 1, "bob")
	if slot != 5 {
		t.Fatalf("bob rejoined in slot %d, want 5", slot)
	}
	if _, ok := d.s.ClientByPeer(2); ok {
		t.Fatal("bob's old session still holds a slot")
	}
	if bob, _ := d.s.Client(5); bob.Deaths != 1 || bob.Peer != 8 {
		t.Fatalf("bob back: %d deaths at peer %d, want 1 at peer 8", bob.Deaths, bob.Peer)
	}
	if st := d.s.Stats(); st.Rejoins != 1 {
		t.Fatalf("%d rejoins counted, want 1", st.Rejoins)
	}
}

// TestSeatRefusalAndSeeding: a refused identity gets the hook's reason
// and no slot; a seeded tally is what the player starts from.
func TestSeatRefusalAndSeeding(t *testing.T) {
	d := seatedDuel(t, Config{Rules: modeRules(mode.Config{Mode: mode.TDM})})
	if slot, why := joinAs(t, d.s, d.s.Time(), 9, 1, "mallory"); slot >= 0 || why != "no seat for mallory" {
		t.Fatalf("mallory: slot %d, reason %q", slot, why)
	}
	d.s.SetTally("dave", Tally{Kills: 4, Deaths: 2, Score: 4, Shots: 30, Hits: 12})
	slot, _ := joinAs(t, d.s, d.s.Time(), 10, 1, "dave")
	if c, _ := d.s.Client(slot); c.Kills != 4 || c.Deaths != 2 || c.Score != 4 || c.Shots != 30 || c.Hits != 12 {
		t.Fatalf("dave starts from %+v, want the seeded tally", c)
	}
	d.s.SetTally("bob", Tally{Deaths: 7})
	if c, _ := d.s.Client(5); c.Deaths != 7 {
		t.Fatalf("seeding a connected player: %d deaths, want 7", c.Deaths)
	}
}

// TestNoSeatHookKeepsNothing: without Config.Seat the server keeps no
// statistics by identity.
func TestNoSeatHookKeepsNothing(t *testing.T) {
	s := testServer(t, Config{})
	slot, _ := joinAs(t, s, 0, 1, 1, "bob")
	s.SetTally("bob", Tally{Kills: 3})
	if c, _ := s.Client(slot); c.Kills != 0 {
		t.Fatalf("kills %d without a seat hook", c.Kills)
	}
	if _, ok := s.TallyOf("bob"); ok {
		t.Fatal("a tally kept without a seat hook")
	}
}
