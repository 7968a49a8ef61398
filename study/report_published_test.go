package study

import "testing"

// TestPublishedComplete: the figures the studies' reports set beside
// ours say where their source prints them, as printed, in what unit,
// and whether they were checked against the source's text.
func TestPublishedComplete(t *testing.T) {
	for _, name := range []string{"alc", "atd", "timewarp"} {
		for _, sim := range []bool{false, true} {
			refs, _ := published(name, sim)
			for _, ref := range refs {
				for _, p := range ref.Problems() {
					t.Errorf("%s: %s under %s: %s", name, ref.Metric, ref.Condition, p)
				}
			}
		}
	}
}
