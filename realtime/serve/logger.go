package serve

import (
	"fmt"
	"io"
	"log/slog"
	"os"

	"golang.org/x/term"
)

// NewLogger returns a logger writing format to w: text, json, or auto
// (text on a terminal, json otherwise).
func NewLogger(format string, w io.Writer) (*slog.Logger, error) {
	switch format {
	case "auto":
		format = "json"
		if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			format = "text"
		}
	case "text", "json":
	default:
		return nil, fmt.Errorf("%q: want auto, text or json", format)
	}
	if format == "text" {
		return slog.New(slog.NewTextHandler(w, nil)), nil
	}
	return slog.New(slog.NewJSONHandler(w, nil)), nil
}
