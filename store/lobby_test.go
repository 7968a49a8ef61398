package store

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/record"
)

// TestLobbyEvents: a study's lobby events come back in the order stored,
// each field as written (an arrival's link study and session ids among
// them), apart from another study's; a batch with a bad event is
// refused whole; and a study whose lobby recorded someone is not
// dropped as empty.
func TestLobbyEvents(t *testing.T) {
	eachDatabase(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db, err := Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		a, err := db.NewStudySet(ctx, StudySet{Name: "online", Created: time.Unix(100, 0)})
		if err != nil {
			t.Fatal(err)
		}
		b, err := db.NewStudySet(ctx, StudySet{Name: "other", Created: time.Unix(200, 0)})
		if err != nil {
			t.Fatal(err)
		}
		lobby := time.Unix(1000, 0).UTC()
		at := func(s int) time.Time { return lobby.Add(time.Duration(s) * time.Second) }
		want := []LobbyEvent{
			{Lobby: lobby, At: at(1), Participant: "5f0c1a2b3c4d5e6f7a8b9c0d", Kind: "arrived", Match: -1, LinkStudy: "60aa1b2c3d4e5f6a7b8c9d0e", LinkSession: "sess-1"},
			{Lobby: lobby, At: at(2), Participant: "5f0c1a2b3c4d5e6f7a8b9c0d", Kind: "admitted", Match: -1},
			{Lobby: lobby, At: at(3), Participant: "p-2", Kind: "arrived", Match: -1},
			{Lobby: lobby, At: at(4), Participant: "p-2", Kind: "refused", Reason: "frame rate 20 fps under the 50 the study needs", Match: -1},
			{Lobby: lobby, At: at(5), Participant: "5f0c1a2b3c4d5e6f7a8b9c0d", Kind: "matched", Match: 0},
			{Lobby: lobby, At: at(9), Participant: "5f0c1a2b3c4d5e6f7a8b9c0d", Kind: "completed", Match: 0},
		}
		if err := db.AddLobbyEvents(ctx, a, want[:4]); err != nil {
			t.Fatal(err)
		}
		if err := db.AddLobbyEvents(ctx, b, []LobbyEvent{{Lobby: lobby, At: at(1), Participant: "x", Kind: "arrived", Match: -1}}); err != nil {
			t.Fatal(err)
		}
		if err := db.AddLobbyEvents(ctx, a, want[4:]); err != nil {
			t.Fatal(err)
		}
		bad := []LobbyEvent{{Lobby: lobby, At: at(10), Participant: "p-3", Kind: "arrived", Match: -1}, {Lobby: lobby, At: at(11), Participant: "p-3", Kind: "teleported", Match: -1}}
		if err := db.AddLobbyEvents(ctx, a, bad); err == nil || !strings.Contains(err.Error(), `kind "teleported"`) {
			t.Fatalf("a bad kind: %v", err)
		}
		if err := db.AddLobbyEvents(ctx, a, []LobbyEvent{{Lobby: lobby, At: at(10), Kind: "arrived"}}); err == nil {
			t.Fatal("an event without a participant id was stored")
		}
		if err := db.AddLobbyEvents(ctx, a, []LobbyEvent{{Lobby: lobby, At: at(10), Participant: "p-4", Kind: "arrived", Match: -1, LinkSession: strings.Repeat("x", maxLobbyText+1)}}); err == nil ||
			!strings.Contains(err.Error(), "session id of 513") {
			t.Fatalf("an overlong link session id: %v", err)
		}
		got, err := db.LobbyEvents(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%d events, want %d: %+v", len(got), len(want), got)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("event %d: %+v, want %+v", i, got[i], want[i])
			}
		}
		if err := db.DropEmptySet(ctx, a); err != nil {
			t.Fatal(err)
		}
		c, err := db.NewStudySet(ctx, StudySet{Name: "nobody came"})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.DropEmptySet(ctx, c); err != nil {
			t.Fatal(err)
		}
		sets, err := db.StudySets(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(sets) != 2 || sets[0].ID != a || sets[1].ID != b {
			t.Errorf("studies after dropping the empty ones: %+v, want %d and %d", sets, a, b)
		}
	})
}

// TestLobbySessions: the session a lobby's match was recorded as is
// found by the participant codes the lobby gave its seats, and linking
// it names it in that match's events of that lobby alone (another
// lobby's match of the same number keeps its own); events stored with
// a session keep it.
func TestLobbySessions(t *testing.T) {
	eachDatabase(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := open(t, dsn)
		at := time.Unix(1_800_000_000, 0)
		session := func(opts WriterOptions, code string) *Writer {
			t.Helper()
			w := db.NewWriter(opts)
			w.Put(record.Study{Name: "online", Schedule: `name = "online"`})
			w.Put(record.Round{Index: 0, Technique: "tlc", Started: at, Ended: at.Add(time.Minute)})
			w.Put(record.Participant{Seat: 0, Round: 0, Code: code})
			w.Put(record.Participant{Seat: 1, Round: 0, Code: "BOT222", Bot: true})
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			return w
		}
		a := session(WriterOptions{SetKey: "online"}, "ABC234")
		b := session(WriterOptions{Set: a.SetID()}, "XYZ789")
		set := a.SetID()
		for _, c := range []struct {
			codes []string
			want  int64
		}{{[]string{"ABC234"}, a.StudyID()}, {[]string{"NOPE22", "XYZ789"}, b.StudyID()}, {[]string{"NOPE22"}, 0}, {[]string{"BOT222"}, 0}, {nil, 0}} {
			if got, err := db.SessionOfCodes(ctx, set, c.codes); got != c.want || err != nil {
				t.Errorf("codes %v: session %d, %v; want %d", c.codes, got, err, c.want)
			}
		}
		if got, err := db.SessionOfCodes(ctx, set+100, []string{"ABC234"}); got != 0 || err != nil {
			t.Errorf("another study's codes: session %d, %v", got, err)
		}
		if _, err := db.SessionOfCodes(ctx, set, []string{"ABC234", "XYZ789"}); err == nil || !strings.Contains(err.Error(), "not in one") {
			t.Errorf("codes of two sessions: %v", err)
		}

		first, second := time.Unix(1000, 0).UTC(), time.Unix(5000, 0).UTC()
		evs := []LobbyEvent{
			{Lobby: first, At: first.Add(time.Second), Participant: "p1", Kind: "arrived", Match: -1},
			{Lobby: first, At: first.Add(2 * time.Second), Participant: "p1", Kind: "matched", Match: 0},
			{Lobby: first, At: first.Add(3 * time.Second), Participant: "p2", Kind: "matched", Match: 0},
			{Lobby: first, At: first.Add(4 * time.Second), Participant: "p2", Kind: "dropped", Reason: "left mid-match (round 1 of 4)", Match: 0},
			{Lobby: second, At: second.Add(time.Second), Participant: "p3", Kind: "matched", Match: 0},
		}
		if err := db.AddLobbyEvents(ctx, set, evs); err != nil {
			t.Fatal(err)
		}
		if n, err := db.LinkLobbySession(ctx, set, first, 0, a.StudyID()); n != 3 || err != nil {
			t.Fatalf("linked %d events, %v; want the 3 of the first lobby's match 0", n, err)
		}
		done := LobbyEvent{Lobby: first, At: first.Add(time.Minute), Participant: "p1", Kind: "completed", Match: 0, Session: a.StudyID()}
		if err := db.AddLobbyEvents(ctx, set, []LobbyEvent{done}); err != nil {
			t.Fatal(err)
		}
		if n, err := db.LinkLobbySession(ctx, set, first, 0, b.StudyID()); n != 0 || err != nil {
			t.Errorf("linking a linked match again: %d events, %v", n, err)
		}
		if _, err := db.LinkLobbySession(ctx, set, first, -1, a.StudyID()); err == nil {
			t.Error("linked the events of no match")
		}
		if err := db.AddLobbyEvents(ctx, set, []LobbyEvent{{Lobby: first, At: first, Participant: "p9", Kind: "arrived", Match: -1, Session: -2}}); err == nil {
			t.Error("stored an event of session -2")
		}
		got, err := db.LobbyEvents(ctx, set)
		if err != nil {
			t.Fatal(err)
		}
		want := []int64{0, a.StudyID(), a.StudyID(), a.StudyID(), 0, a.StudyID()}
		if len(got) != len(want) {
			t.Fatalf("%d events: %+v", len(got), got)
		}
		for i, e := range got {
			if e.Session != want[i] {
				t.Errorf("event %d (%s %s, lobby %v, match %d): session %d, want %d", i, e.Participant, e.Kind, e.Lobby, e.Match, e.Session, want[i])
			}
		}
	})
}
