package record

import "testing"

func TestMemoryKeepsOrder(t *testing.T) {
	var m Memory
	var s Sink = &m
	s.Put(Round{Index: 0, Name: "warm-up"})
	s.Put(Shot{Round: 0, Shooter: 1, Victim: -1})
	s.Put(Kill{Round: 0, Killer: 1, Victim: 2})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if len(m.Records) != 3 {
		t.Fatalf("kept %d records, want 3", len(m.Records))
	}
	if _, ok := m.Records[1].(Shot); !ok {
		t.Fatalf("second record is %T, want Shot", m.Records[1])
	}
}
