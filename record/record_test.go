package record

import (
	"errors"
	"testing"
)

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

type failing struct{ Memory }

func (failing) Close() error { return errTest }

var errTest = errors.New("close failed")

func TestTeeFeedsEverySink(t *testing.T) {
	var a Memory
	var b failing
	s := Tee(&a, &b)
	s.Put(Kill{Killer: 1})
	s.Put(Path{X: 2})
	if err := s.Close(); !errors.Is(err, errTest) {
		t.Fatalf("Close: %v, want the failing sink's error", err)
	}
	if len(a.Records) != 2 || len(b.Records) != 2 {
		t.Fatalf("sinks got %d and %d records, want 2 each", len(a.Records), len(b.Records))
	}
}
