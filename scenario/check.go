package scenario

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// CheckFiles runs each scenario file under every policy it states
// expectations for, and counts the runs that failed them.
func CheckFiles(paths []string) (runs []CheckRun, failed int, err error) {
	for _, path := range paths {
		f, err := Load(path)
		if err != nil {
			return nil, 0, err
		}
		for _, p := range f.Policies() {
			cfg := f.Policy
			cfg.Name = p
			res, err := f.Run(cfg)
			if err != nil {
				return nil, 0, err
			}
			run := CheckRun{File: path, Policy: p, OK: true, Failures: []string{}}
			for _, b := range f.Check(res) {
				run.OK = false
				run.Failures = append(run.Failures, fmt.Sprint(b))
			}
			if !run.OK {
				failed++
			}
			runs = append(runs, run)
		}
	}
	return runs, failed, nil
}

// CheckRun is one scenario file run under one policy by CheckFiles.
type CheckRun struct {
	File     string   `json:"file"`
	Policy   string   `json:"policy"`
	OK       bool     `json:"ok"`
	Failures []string `json:"failures"`
}

// WriteTable writes r for people, a row per shot.
func (r *Result) WriteTable(w io.Writer) {
	fmt.Fprintf(w, "%s under %s: %d shot(s)\n", r.Scenario, r.Policy, len(r.Shots))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\ttime\tshooter\tvictim\tpart\thit\tregistered\tsbc\tappeal\trewind\trollback\tconfirm")
	for _, s := range r.Shots {
		victim, confirm := s.Victim, "-"
		if victim == "" {
			victim = "-"
		}
		if s.ConfirmDelayMS != nil {
			confirm = fmt.Sprintf("%.0f ms", *s.ConfirmDelayMS)
		}
		fmt.Fprintf(tw, "%d\t%.0f ms\t%s\t%s\t%s\t%v\t%v\t%v\t%s\t%.0f ms\t%.2f m\t%s\n",
			s.N, s.TimeMS, s.Shooter, victim, s.Part, s.Hit, s.Registered, s.SBC, s.Appeal, s.RewindMS, s.RollbackM, confirm)
	}
	tw.Flush()
}
