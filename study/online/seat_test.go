package online

import (
	"testing"

	"github.com/lagkit/lagkit/web"
)

// TestAnswersAttentive: a seat given the attention checks' instructed
// answers gives them and answers the rest at each scale's middle; one
// without answers the check's middle too.
func TestAnswersAttentive(t *testing.T) {
	qs := []web.StudyQuestion{
		{ID: "fair", Kind: "fairness", Min: 1, Max: 7},
		{ID: "attention", Kind: "likert", Min: 1, Max: 5},
		{ID: "lag", Kind: "yesno", Min: 0, Max: 1},
	}
	got := answers(qs, map[string]int{"attention": 2})
	if len(got) != 3 || got[0].Value != 4 || got[1].Value != 2 || got[2].Value != 0 {
		t.Errorf("attentive %+v", got)
	}
	if got := answers(qs, nil); got[1].Value != 3 {
		t.Errorf("inattentive %+v", got)
	}
}
