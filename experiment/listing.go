package experiment

// Listed is one experiment as lagkit experiment list shows it.
type Listed struct {
	Name       string `json:"name"`
	Title      string `json:"title"`
	Design     string `json:"design"`
	Cells      int    `json:"cells"`
	QuickCells int    `json:"quick_cells"`
}

// Listing lists the built-in experiments with their cells, in List's
// order.
func Listing() []Listed {
	out := []Listed{}
	for _, e := range List() {
		out = append(out, Listed{e.Name, e.Title, e.Design, len(e.Cells(false)), len(e.Cells(true))})
	}
	return out
}
