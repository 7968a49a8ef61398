package study

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/lagkit/lagkit/record"
)

// Consent is the schedule's [consent] table: the text a participant
// reads and agrees to before playing. A study with one admits a
// participant's page to its seat's matches only after the participant
// has agreed.
type Consent struct {
	// Text is what the participant reads (paragraphs separated by blank
	// lines).
	Text string `toml:"text"`
	// Agree labels the button that agrees (default "I agree").
	Agree string `toml:"agree"`
}

// Limits of the instruments.
const (
	maxConsent    = 8000
	maxChoices    = 20
	maxLabel      = 100
	maxScalePoint = 20 // a scale's points less one
	maxNumber     = 1_000_000_000
)

// DefaultAgree labels the consent button when the schedule names none.
const DefaultAgree = "I agree"

// ScaleKinds are the question kinds answered with a point of an
// ordered scale: the per-round analysis gives their medians and means
// and compares them between techniques.
var ScaleKinds = []string{record.Likert, record.Likert7, record.Fairness, record.Scale, record.Number}

// Ordered reports whether kind is answered on an ordered scale (one of
// ScaleKinds).
func Ordered(kind string) bool { return slices.Contains(ScaleKinds, kind) }

// Bounds returns the least and the greatest value of q's answers: yes/no
// 0 and 1, Likert 1 to 5 or 7, fairness -5 to 5, a scale's or a number's
// min and max, a choice's 0 and the number of choices less one; 0 and 0
// for free text.
func (q *Question) Bounds() (lo, hi int) {
	switch q.Kind {
	case record.YesNo:
		return 0, 1
	case record.Likert:
		return 1, 5
	case record.Likert7:
		return 1, 7
	case record.Fairness:
		return -5, 5
	case record.Scale, record.Number:
		if q.Min != nil && q.Max != nil {
			return *q.Min, *q.Max
		}
	case record.Choice:
		return 0, len(q.Choices) - 1
	}
	return 0, 0
}

// AnchorLabels returns the labels of the ends of q's scale: the
// schedule's, or the kind's own (Likert: strongly disagree and strongly
// agree); empty for kinds without them.
func (q *Question) AnchorLabels() (low, high string) {
	if len(q.Anchors) == 2 {
		return q.Anchors[0], q.Anchors[1]
	}
	switch q.Kind {
	case record.Likert, record.Likert7:
		return "strongly disagree", "strongly agree"
	}
	return "", ""
}

// Record returns q as the study keeps it, seq being its place among its
// stage's questions.
func (q *Question) Record(seq int) record.Question {
	lo, hi := q.Bounds()
	low, high := q.AnchorLabels()
	return record.Question{ID: q.ID, Stage: q.Stage, Seq: seq, Kind: q.Kind, Text: q.Text, Min: lo, Max: hi,
		Choices: strings.Join(q.Choices, "\n"), LowAnchor: low, HighAnchor: high}
}

// Instruments returns every question of s, in the order they are put:
// the intake questions, the questionnaire after each round, the final
// questions.
func (s *Schedule) Instruments() []Question {
	out := slices.Concat(s.Intake, s.Questions, s.Final)
	return out
}

// QuestionsAfter returns the questions put after round i: the
// questionnaire after each round, and after the last the final
// questions too.
func (s *Schedule) QuestionsAfter(i int) []Question {
	if i == len(s.plans)-1 && len(s.Final) > 0 {
		return slices.Concat(s.Questions, s.Final)
	}
	return s.Questions
}

// ConsentText returns the consent text participants agree to, "" when
// the schedule has no [consent] table.
func (s *Schedule) ConsentText() string {
	if s.Consent == nil {
		return ""
	}
	return s.Consent.Text
}

// checkInstruments checks the consent, the intake and the final
// questions, and the question ids across the three lists.
func (s *Schedule) checkInstruments() *problem {
	if c := s.Consent; c != nil {
		switch {
		case strings.TrimSpace(c.Text) == "":
			return fail("consent.text", "missing: the text participants read and agree to before playing")
		case len(c.Text) > maxConsent:
			return fail("consent.text", "%d bytes, want at most %d", len(c.Text), maxConsent)
		case len(c.Agree) > maxLabel:
			return fail("consent.agree", "%d bytes, want at most %d", len(c.Agree), maxLabel)
		}
		if c.Agree == "" {
			c.Agree = DefaultAgree
		}
	}
	ids := map[string]string{}
	for _, list := range []struct {
		key, stage string
		qs         []Question
	}{{"intake", record.StageIntake, s.Intake}, {"question", record.StageRound, s.Questions}, {"final", record.StageFinal, s.Final}} {
		if len(list.qs) > MaxQuestions {
			return fail(list.key, "%d questions, want at most %d", len(list.qs), MaxQuestions)
		}
		for i := range list.qs {
			q := &list.qs[i]
			at := fmt.Sprintf("%s[%d].", list.key, i)
			q.Stage = list.stage
			if p := q.check(); p != nil {
				return p.Within(at)
			}
			if where, dup := ids[q.ID]; dup {
				return fail(at+"id", "%q is the id of %s: ids are unique across intake, question and final", q.ID, where)
			}
			ids[q.ID] = fmt.Sprintf("%s[%d]", list.key, i)
			switch {
			case list.stage == record.StageRound && q.Kind == record.Choice:
				return fail(at+"kind", "choice is for [[intake]] and [[final]] questions: the questionnaire after each round is compared "+
					"between techniques, which wants answers on an ordered scale (%s) or yes/no or text", strings.Join(ScaleKinds, ", "))
			case list.stage != record.StageRound && (len(q.Synthetic) > 0 || q.SyntheticParticipantSD != 0):
				return fail(at+"synthetic", "synthetic answers are drawn for the questionnaire after each round ([[question]]) only")
			}
		}
	}
	return nil
}

// check checks one question on its own: its id, text and kind, and the
// keys its kind takes (choices; min and max; anchors).
func (q *Question) check() *problem {
	switch {
	case q.ID == "":
		return fail("id", "missing: give the question an id, such as fairness")
	case !idPattern.MatchString(q.ID):
		return fail("id", "%q: want 1 to 32 lower-case letters, digits, - or _, starting with a letter or digit", q.ID)
	case q.Text == "":
		return fail("text", "missing: the question as participants read it")
	case len(q.Text) > maxText:
		return fail("text", "%d bytes, want at most %d", len(q.Text), maxText)
	case !slices.Contains(QuestionKinds, q.Kind):
		return fail("kind", "%q, want one of %s", q.Kind, strings.Join(QuestionKinds, ", "))
	}
	if p := q.checkChoices(); p != nil {
		return p
	}
	if p := q.checkRange(); p != nil {
		return p
	}
	if p := q.checkCheck(); p != nil {
		return p
	}
	return q.checkAnchors()
}

// checkCheck checks an attention or manipulation check's keys: check
// names its kind, and correct is an answer the question can be given.
func (q *Question) checkCheck() *problem {
	switch {
	case q.Check == "" && q.Correct != nil:
		return fail("correct", "only a check has a correct answer: give check = \"attention\" (or \"manipulation\")")
	case q.Check == "":
		return nil
	case q.Check != CheckAttention && q.Check != CheckManipulation:
		return fail("check", "%q, want %s or %s", q.Check, CheckAttention, CheckManipulation)
	case q.Kind == record.Text:
		return fail("check", "a text question has no answer to check: give it another kind")
	case q.Check == CheckAttention && q.Correct == nil:
		return fail("correct", "missing: an attention check needs the answer it instructs, such as correct = 2")
	case q.Correct == nil:
		return nil
	}
	lo, hi := scale(q)
	if q.Kind == record.Choice {
		lo, hi = 0, float64(len(q.Choices)-1)
	}
	if v := float64(*q.Correct); v < lo || v > hi {
		return fail("correct", "%d, want an answer the question takes: %v to %v", *q.Correct, lo, hi)
	}
	return nil
}

func (q *Question) checkChoices() *problem {
	if q.Kind != record.Choice {
		if q.Choices != nil {
			return fail("choices", "only a choice question has choices (this one is %s)", q.Kind)
		}
		return nil
	}
	if len(q.Choices) < 2 || len(q.Choices) > maxChoices {
		return fail("choices", "%d choices, want 2 to %d, such as [\"never\", \"weekly\", \"daily\"]", len(q.Choices), maxChoices)
	}
	for j, c := range q.Choices {
		switch {
		case strings.TrimSpace(c) == "" || len(c) > maxLabel || !utf8.ValidString(c) || strings.ContainsAny(c, "\n\r"):
			return fail("choices", "choice %d: %q, want 1 to %d bytes of text on one line", j+1, c, maxLabel)
		case slices.Contains(q.Choices[:j], c):
			return fail("choices", "choice %d: %q is an earlier choice", j+1, c)
		}
	}
	return nil
}

func (q *Question) checkRange() *problem {
	ranged := q.Kind == record.Scale || q.Kind == record.Number
	switch {
	case !ranged && q.Min != nil:
		return fail("min", "only scale and number questions take min and max (this one is %s, whose range is fixed)", q.Kind)
	case !ranged && q.Max != nil:
		return fail("max", "only scale and number questions take min and max (this one is %s, whose range is fixed)", q.Kind)
	case !ranged:
		return nil
	case q.Min == nil:
		return fail("min", "missing: a %s question needs its least answer, min", q.Kind)
	case q.Max == nil:
		return fail("max", "missing: a %s question needs its greatest answer, max", q.Kind)
	case *q.Min < -maxNumber || *q.Min > maxNumber:
		return fail("min", "%d, want -%d to %d", *q.Min, maxNumber, maxNumber)
	case *q.Max <= *q.Min || *q.Max > maxNumber:
		return fail("max", "%d, want above min (%d) and at most %d", *q.Max, *q.Min, maxNumber)
	case q.Kind == record.Scale && *q.Max-*q.Min > maxScalePoint:
		return fail("max", "a scale of %d points, want 2 to %d (a wider range is a number question)", *q.Max-*q.Min+1, maxScalePoint+1)
	}
	return nil
}

func (q *Question) checkAnchors() *problem {
	switch {
	case q.Anchors == nil && q.Kind == record.Scale:
		return fail("anchors", "missing: a scale question labels its ends, such as [\"not at all\", \"extremely\"]")
	case q.Anchors == nil:
		return nil
	case q.Kind != record.Scale && q.Kind != record.Likert && q.Kind != record.Likert7 && q.Kind != record.Fairness:
		return fail("anchors", "only likert, likert7, fairness and scale questions have anchors (this one is %s)", q.Kind)
	case len(q.Anchors) != 2:
		return fail("anchors", "%d labels, want 2: the low end's and the high end's", len(q.Anchors))
	}
	for j, a := range q.Anchors {
		if strings.TrimSpace(a) == "" || len(a) > maxLabel || !utf8.ValidString(a) {
			return fail("anchors", "label %d: %q, want 1 to %d bytes of text", j+1, a, maxLabel)
		}
	}
	return nil
}

// WriteInstruments writes the consent screen and the intake and final
// questions for study check, one line each: nothing when the schedule
// has none.
func (s Summary) WriteInstruments(w io.Writer) {
	if s.Consent != "" {
		text := strings.Join(strings.Fields(s.Consent), " ")
		if r := []rune(text); len(r) > 60 {
			text = string(r[:57]) + "..."
		}
		fmt.Fprintf(w, "consent before playing (%q): %s\n", s.Agree, text)
	}
	for _, l := range []struct {
		what string
		qs   []Question
	}{{"intake, once before the first round", s.Intake}, {"final, once after the last round", s.Final}} {
		if len(l.qs) == 0 {
			continue
		}
		fmt.Fprintf(w, "%s:\n", l.what)
		for _, q := range l.qs {
			lo, hi := q.Bounds()
			kind := q.Kind
			switch q.Kind {
			case record.Choice:
				kind = "choice of " + strings.Join(q.Choices, " | ")
			case record.Scale, record.Number:
				kind = fmt.Sprintf("%s %d to %d", q.Kind, lo, hi)
			}
			fmt.Fprintf(w, "  %-20s %s: %s\n", q.ID, kind, q.Text)
		}
	}
}
