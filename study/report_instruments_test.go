package study

import (
	"slices"
	"strings"
	"testing"

	"github.com/lagkit/lagkit/record"
)

// TestReportInstruments: the intake and final answers are summed up on
// their own (never pooled into the per-round questionnaire), choices
// with their shares and intervals, numbers with their medians; the
// clients' last reports and the consent text are in the report, its
// tables and its Markdown.
func TestReportInstruments(t *testing.T) {
	recs := people()
	st := recs[0].(record.Study)
	st.Consent = "I agree to play.\nMy answers stay anonymous."
	recs[0] = st
	recs = append(recs,
		record.Question{ID: "age", Stage: record.StageIntake, Seq: 0, Kind: record.Number, Text: "Age", Min: 18, Max: 99},
		record.Question{ID: "hours", Stage: record.StageIntake, Seq: 1, Kind: record.Choice, Text: "Hours", Max: 2, Choices: "none\n1 to 5\nover 5"},
		record.Question{ID: "fair", Stage: record.StageRound, Kind: record.Fairness, Text: "Fair?", Min: -5, Max: 5},
		record.Question{ID: "noticed", Stage: record.StageFinal, Seq: 0, Kind: record.YesNo, Text: "Noticed?", Max: 1},
		record.Client{Seat: 0, Round: -1, Consented: true, At: epoch, RefreshHz: 59.9, Sensitivity: 2.2, UserAgent: "A"},
		record.Client{Seat: 0, Round: 0, At: epoch, RefreshHz: 60, Sensitivity: 3, UserAgent: "A"},
		record.Client{Seat: 1, Round: -1, Consented: true, At: epoch, RefreshHz: 144, Sensitivity: 1.5, UserAgent: "B"},
		record.Answer{Round: -1, Seat: 0, Question: "age", Kind: record.Number, Stage: record.StageIntake, Value: 24},
		record.Answer{Round: -1, Seat: 1, Question: "age", Kind: record.Number, Stage: record.StageIntake, Value: 31},
		record.Answer{Round: -1, Seat: 0, Question: "hours", Kind: record.Choice, Stage: record.StageIntake, Value: 2, Text: "over 5"},
		record.Answer{Round: -1, Seat: 1, Question: "hours", Kind: record.Choice, Stage: record.StageIntake, Value: 2, Text: "over 5"},
		// A final yes/no given after round 0, which must not count as
		// the round's questionnaire.
		record.Answer{Round: 0, Seat: 0, Question: "noticed", Kind: record.YesNo, Stage: record.StageFinal, Value: 1},
	)
	rep, err := Summarise(recs)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range rep.Questions {
		if q.Question == "noticed" || q.Question == "age" {
			t.Errorf("per-round questionnaire holds %s", q.Question)
		}
	}
	if len(rep.Instruments) != 3 {
		t.Fatalf("instruments %+v, want age, hours, noticed", rep.Instruments)
	}
	age, hours, noticed := rep.Instruments[0], rep.Instruments[1], rep.Instruments[2]
	if age.Question != "age" || age.N != 2 || *age.Mean != 27.5 || *age.Median != 27.5 || age.CILo != nil || age.CINote == "" {
		t.Errorf("age %+v, want 2 answers, mean and median 27.5, too few for an interval", age)
	}
	if hours.N != 2 || len(hours.Choices) != 3 || hours.Choices[2].N != 2 || hours.Choices[2].Share != 1 || hours.Choices[0].N != 0 ||
		!(hours.Choices[2].CILo > 0.3 && hours.Choices[2].CILo < 0.4) || hours.Choices[2].CIHi != 1 {
		t.Errorf("hours %+v, want both over 5, Wilson 0.34 to 1", hours.Choices)
	}
	if noticed.Stage != record.StageFinal || noticed.N != 1 || noticed.Choices[1].N != 1 {
		t.Errorf("noticed %+v, want one yes", noticed)
	}
	if len(rep.Clients) != 2 || !rep.Clients[0].Consented || rep.Clients[0].Reports != 2 || rep.Clients[0].Sensitivity != 3 || rep.Clients[1].RefreshHz != 144 {
		t.Errorf("clients %+v, want seat 0's last report and its consent", rep.Clients)
	}
	tables := map[string]int{}
	for _, tb := range rep.Results().Tables {
		tables[tb.Name] = len(tb.Rows)
	}
	if tables["study_instruments"] != 1+3+2 || tables["study_clients"] != 2 {
		t.Errorf("tables %v, want study_instruments with 6 rows and study_clients with 2", tables)
	}
	// The long table carries the intake answers as covariates, in each
	// of the participant's rows.
	long := rep.participantTable()
	ia, ih := slices.Index(long.Columns, "intake_age"), slices.Index(long.Columns, "intake_hours")
	if ia < 0 || ih < 0 || slices.Contains(long.Columns, "intake_noticed") {
		t.Fatalf("long table columns %v, want intake_age and intake_hours alone", long.Columns)
	}
	for _, row := range long.Rows {
		want := map[string][2]string{"0": {"24", "2"}, "1": {"31", "2"}, "2": {"", ""}}[row[3]]
		if row[ia] != want[0] || row[ih] != want[1] {
			t.Errorf("long table row %v: intake %q %q, want %q", row, row[ia], row[ih], want)
		}
	}
	md := rep.Markdown()
	for _, want := range []string{"## Participants", "> I agree to play.\n> My answers stay anonymous.", "| intake | hours | choice | 2 | none 0 (0%, 0–66%); 1 to 5 0", "| 0 | true | 60.0 | 3.00 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q", want)
		}
	}
}

// TestReportDesign: the report lists the people's seat orders and their
// network per round, injected beside measured, leaving the bot out, in
// its tables and its Markdown.
func TestReportDesign(t *testing.T) {
	recs := people()
	recs = append(recs[:1], append([]record.Record{
		record.SeatOrder{Seat: 0, Group: 1, Design: "latin", Order: "alc"},
		record.SeatOrder{Seat: 1, Group: 1, Design: "latin", Order: "alc"},
		record.SeatOrder{Seat: 2, Group: 1, Design: "latin", Order: "alc"},
	}, recs[1:]...)...)
	recs = append(recs,
		record.Network{Round: 0, Seat: 2, LatencyMS: 125, RTTMeanMS: 251, RTTSamples: 10},
		record.Network{Round: 0, Seat: 1, LatencyMS: 125, RTTMeanMS: 262.5, RTTP95MS: 300, RTTSamples: 10, LossUp: 0.01},
		record.Network{Round: 0, Seat: 0, LatencyMS: 10, RTTMeanMS: 21, RTTSamples: 10},
		// A live round's client-side half comes with the page's frames:
		// seat 1's fills its row; seat 0's page reported none.
		record.Frames{Round: 0, Seat: 1, Frames: 600, RTTMeanMS: 258, RTTJitterMS: 2, RTTSamples: 400},
		record.Frames{Round: 0, Seat: 0, Frames: 600},
	)
	rep, err := Summarise(recs)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.SeatOrders) != 2 || rep.SeatOrders[1].Seat != 1 || rep.SeatOrders[1].Order != "alc" || !rep.SeatOrders[0].Person {
		t.Errorf("seat orders %+v, want the two people's", rep.SeatOrders)
	}
	if len(rep.Network) != 2 || rep.Network[0].Seat != 0 || rep.Network[1].RTTMeanMS != 262.5 || rep.Network[1].Technique == "" {
		t.Errorf("network %+v, want seats 0 and 1 with their technique", rep.Network)
	}
	if n := rep.Network; len(n) == 2 && (n[1].ClientRTTMeanMS != 258 || n[1].ClientSamples != 400 || n[0].ClientSamples != 0) {
		t.Errorf("network %+v, want seat 1's client round trip from its page's report and none for seat 0", n)
	}
	var net []string
	for _, tb := range rep.Results().Tables {
		if tb.Name == "study_network" {
			for _, row := range tb.Rows {
				net = append(net, row[2]+"@"+row[4]+"@"+row[7])
			}
		}
	}
	if strings.Join(net, " ") != "0@20@21 1@250@262.5" {
		t.Errorf("study_network rows %q, want seat@injected@measured", net)
	}
	md := rep.Markdown()
	for _, want := range []string{"## Order of techniques", "| 1 | true | 1 | latin | alc |", "## Network: injected and measured", "| 1 | policy=alc | 1 | – | 250 | 262.5 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q", want)
		}
	}
}

// TestNoAnswersNoInterval: an intake choice question no one answered is
// said to have no answers, not given a "0–0%" interval.
func TestNoAnswersNoInterval(t *testing.T) {
	r := Report{Instruments: []InstrumentSummary{{Stage: "intake", Question: "games", Kind: "choice",
		Choices: []ChoiceCount{{Choice: "none"}, {Choice: "some"}}}}}
	var b strings.Builder
	r.markdownInstruments(&b)
	if strings.Contains(b.String(), "0–0%") || !strings.Contains(b.String(), "| intake | games | choice | 0 | no answers |") {
		t.Errorf("instruments:\n%s", b.String())
	}
}
