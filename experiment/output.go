package experiment

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// DefaultOut returns a new folder name under ./results for a run of
// name, stamped with the time.
func DefaultOut(name string) string {
	base := filepath.Join("results", name+"-"+time.Now().Format("20060102-150405"))
	out := base
	for i := 2; ; i++ {
		if _, err := os.Stat(out); os.IsNotExist(err) {
			return out
		}
		out = fmt.Sprintf("%s-%d", base, i)
	}
}

// Progress returns an Options.Progress that reports the cells of run
// name done on w: a bar on a terminal, plain lines otherwise (and
// whenever CI is set).
func Progress(w io.Writer, name string) func(done, total int, c Cell) {
	f, isFile := w.(*os.File)
	if isFile && term.IsTerminal(int(f.Fd())) && os.Getenv("CI") == "" {
		var bar *progressbar.ProgressBar
		return func(done, total int, c Cell) {
			if bar == nil {
				bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription(name),
					progressbar.OptionShowCount(), progressbar.OptionClearOnFinish())
			}
			bar.Set(done)
		}
	}
	return func(done, total int, c Cell) {
		fmt.Fprintf(w, "%s: %d/%d cells done (%s, replicate %d)\n", name, done, total, c.Condition, c.Replicate)
	}
}
