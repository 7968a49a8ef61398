package study

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/lagkit/lagkit/record"
)

// TestQuickRunSaysSo: a study run shortened as --quick shortens it keeps
// the cut in its study record, and its report says "Quick run: yes" with
// the cut, its results say quick, and its wall time is the span from the
// start to the last round's end (not 0); a study at the schedule's own
// lengths says "Quick run: no".
func TestQuickRunSaysSo(t *testing.T) {
	for _, quick := range []bool{true, false} {
		s, err := Parse("pilot.toml", []byte(pilot))
		if err != nil {
			t.Fatal(err)
		}
		if quick {
			s.Shorten(5 * time.Second)
		}
		var mem record.Memory
		if err := Run(context.Background(), s, NewSimulation(epoch), &mem, Options{Seed: 3}); err != nil {
			t.Fatal(err)
		}
		rep, err := Summarise(mem.Records)
		if err != nil {
			t.Fatal(err)
		}
		var last time.Time
		for _, r := range mem.Records {
			if rr, ok := r.(record.Round); ok && rr.Ended.After(last) {
				last = rr.Ended
			}
		}
		res := rep.Results()
		md := rep.Markdown()
		if quick {
			if rep.Run.ShortenedS != 5 || !res.Quick || !strings.Contains(md, "Quick run: yes. `--quick` cut every round's measured part to at most 5 s") {
				t.Errorf("quick run: shortened %v s, results quick %v, study.md:\n%s", rep.Run.ShortenedS, res.Quick, md)
			}
		} else if rep.Run.ShortenedS != 0 || res.Quick || !strings.Contains(md, "Quick run: no") {
			t.Errorf("full run: shortened %v s, results quick %v", rep.Run.ShortenedS, res.Quick)
		}
		if want := last.Sub(epoch).Seconds(); rep.Run.WallS != want || res.WallS != want || want <= 0 {
			t.Errorf("quick %v: wall time %v s (results %v), want %v", quick, rep.Run.WallS, res.WallS, want)
		}
	}
}

// TestProvenanceReadsCheckout: a test binary carries no VCS stamp of
// Go's, yet the study's provenance names the revision of the checkout
// it runs in (git's HEAD), and build_note says where it came from.
func TestProvenanceReadsCheckout(t *testing.T) {
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not in a git checkout: %v", err)
	}
	b, source := Provenance()
	if b.Revision != strings.TrimSpace(string(head)) {
		t.Fatalf("revision %q, want HEAD %q", b.Revision, strings.TrimSpace(string(head)))
	}
	if note := BuildNote(b, source); !strings.Contains(note, "read at run time, by git") {
		t.Fatalf("build note %q", note)
	}
	Revision = "0123abc"
	defer func() { Revision = "" }()
	if b, source := Provenance(); b.Revision != "0123abc" || !strings.Contains(BuildNote(b, source), "link time") {
		t.Fatalf("with a linked revision: %q, %q", b.Revision, BuildNote(b, source))
	}
}
