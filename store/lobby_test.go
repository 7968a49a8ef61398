package store

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestLobbyEvents: a study's lobby events come back in the order stored,
// each field as written, apart from another study's; a batch with a bad
// event is refused whole; and a study whose lobby recorded someone is
// not dropped as empty.
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
			{Lobby: lobby, At: at(1), Participant: "5f0c1a2b3c4d5e6f7a8b9c0d", Kind: "arrived", Match: -1},
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
