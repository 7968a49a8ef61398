package realtime

import (
	"testing"
	"time"

	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/lagcomp"
)

// TestView watches a match of four bots on arena from above: every
// seated player is in the View where the server has it, with its four
// hitboxes, and the bots' hits arrive as rewinds, each once, with the
// victim's tested hitboxes beside its present ones.
func TestView(t *testing.T) {
	h := NewHost(quiet, nil)
	defer h.Shutdown(t.Context(), "test over")
	m, err := h.Start(MatchConfig{Map: "arena", Mode: "tdm", Seats: 4, Bots: 4, Policy: lagcomp.Config{Name: "tlc"}})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, m, "four bots seated", func(i MatchInfo) bool { return len(i.Players) == 4 && i.Bots == 4 })
	if m.MapFile() == nil || m.MapFile().Name != "arena" {
		t.Fatalf("MapFile: %v", m.MapFile())
	}
	var since uint64
	seen := map[uint64]bool{}
	deadline := time.Now().Add(60 * time.Second)
	for len(seen) < 3 && time.Now().Before(deadline) {
		v, err := m.View(since)
		if err != nil {
			t.Fatal(err)
		}
		if v.Match != m.ID() || v.Map != "arena" || len(v.Players) != 4 {
			t.Fatalf("view of %s on %s with %d players, want %s on arena with 4", v.Match, v.Map, len(v.Players), m.ID())
		}
		for _, p := range v.Players {
			if !p.Bot || len(p.Parts) != game.NumParts || p.Parts[0].A[2] <= p.Pos[2] {
				t.Fatalf("player %+v: want a bot with its hitboxes above its feet", p)
			}
		}
		for _, r := range v.Rewinds {
			if r.Seq <= since || seen[r.Seq] {
				t.Fatalf("rewind %d again after %d", r.Seq, since)
			}
			seen[r.Seq] = true
			since = r.Seq
			if r.Shooter == r.Victim || len(r.Tested) != game.NumParts || len(r.Now) != game.NumParts || r.RewindMs < 0 || r.Part == "" {
				t.Fatalf("rewind %+v", r)
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(seen) < 3 {
		t.Fatalf("%d hits seen in a minute of four bots, want 3", len(seen))
	}
}
