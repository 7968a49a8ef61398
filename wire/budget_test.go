package wire

import (
	"slices"
	"testing"
)

// budgetRoundTrip encodes s against base within budget by prio, checks
// that the datagram decodes to exactly what s became, and returns it.
func budgetRoundTrip(t *testing.T, s, base *Snapshot, budget int, prio []uint32) []byte {
	t.Helper()
	b, err := AppendSnapshotBudget(nil, s, base, MaxDatagram, budget, prio)
	if err != nil {
		t.Fatal(err)
	}
	got := Snapshot{HealthToAll: s.HealthToAll, Game: s.Game} // the session's
	got.SetSlots(s.Slots())
	if err := DecodeSnapshot(b, &got, func(uint32) *Snapshot { return base }); err != nil {
		t.Fatal(err)
	}
	if d := diffSnapshot(&got, s); d != "" {
		t.Fatalf("decoded snapshot differs from the one encoded: %s", d)
	}
	return b
}

// walkersDelta returns Walkers at tick 1000 and age ticks later, the
// later one delta encoded against the earlier.
func walkersDelta(age uint32, turn bool) (base, s *Snapshot) {
	base, s = Walkers(1000, turn), Walkers(1000+age, turn)
	s.Baseline = base.Tick
	return base, s
}

// TestBudgetByPriority checks that under a budget the entries with the
// highest priority are sent, those left out keep the baseline's state,
// and the snapshot stays within the budget.
func TestBudgetByPriority(t *testing.T) {
	base, s := walkersDelta(4, true)
	want := cloneSnapshot(s)
	prio := make([]uint32, MaxEntities)
	for i := range prio {
		prio[i] = uint32(i * 7 % 64) // distinct, mixed order
	}
	const budget = 120
	b := budgetRoundTrip(t, s, base, budget, prio)
	if len(b) > budget {
		t.Errorf("%d bytes, budget %d", len(b), budget)
	}
	sent, leastSent, mostLeft := 0, uint32(1<<32-1), uint32(0)
	for i := 1; i < 64; i++ {
		switch s.Entities[i] {
		case want.Entities[i]:
			sent++
			leastSent = min(leastSent, prio[i])
		case base.Entities[i]:
			mostLeft = max(mostLeft, prio[i])
		default:
			t.Fatalf("entity %d is neither the new state nor the baseline's", i)
		}
	}
	if sent == 0 || sent == 63 {
		t.Fatalf("%d of 63 entries sent in %d bytes: the budget should take some", sent, budget)
	}
	// Entries are skipped only when they do not fit, and all cost about
	// the same: every one sent outranks nearly every one left out.
	if leastSent < mostLeft-8 {
		t.Errorf("sent an entry of priority %d but left out one of %d", leastSent, mostLeft)
	}
}

// TestBudgetUrgent checks that urgent entries are sent past the budget
// and that a budget the entries fit in changes nothing.
func TestBudgetUrgent(t *testing.T) {
	base, s := walkersDelta(2, false)
	want := cloneSnapshot(s)
	prio := make([]uint32, MaxEntities)
	for i := range 64 {
		prio[i] = PriorityUrgent
	}
	b := budgetRoundTrip(t, s, base, 60, prio)
	if !slices.Equal(s.Entities, want.Entities) || len(b) <= 60 {
		t.Errorf("urgent entries left out (%d bytes)", len(b))
	}
	base, s = walkersDelta(2, false)
	clear(prio)
	plain, err := AppendSnapshot(nil, cloneSnapshot(s), base, MaxDatagram)
	if err != nil {
		t.Fatal(err)
	}
	b = budgetRoundTrip(t, s, base, MaxDatagram, prio)
	if string(b) != string(plain) {
		t.Errorf("a budget everything fits in changed the encoding")
	}
	if _, err := AppendSnapshotBudget(nil, s, base, 300, 301, prio); err == nil {
		t.Errorf("budget over limit accepted")
	}
}

// TestStampCode checks the stamp's cost: one bit for a state of the
// snapshot's own tick, two for the baseline's, 34 for another.
func TestStampCode(t *testing.T) {
	for _, tt := range []struct {
		stamp uint32
		bits  uint
	}{{900, 1}, {700, 2}, {800, 34}} {
		if _, n := stampCode(tt.stamp, 700, 900); n != tt.bits {
			t.Errorf("stamp %d: %d bits, want %d", tt.stamp, n, tt.bits)
		}
	}
}
