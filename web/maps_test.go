package web

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lagkit/lagkit/realtime"
)

// TestMapPathServesServerMaps: with Options.Maps the page gets the maps
// a server loaded at start as well as the shipped ones, by name only.
func TestMapPathServesServerMaps(t *testing.T) {
	arena, err := os.ReadFile("../world/maps/arena.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	yard := strings.Replace(string(arena), `"name": "arena"`, `"name": "yard"`, 1)
	if err := os.WriteFile(filepath.Join(dir, "yard.json"), []byte(yard), 0o644); err != nil {
		t.Fatal(err)
	}
	maps, err := realtime.LoadMaps(dir)
	if err != nil {
		t.Fatal(err)
	}
	get := func(h http.Handler, name string) (int, string) {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, MapPath+name, nil))
		return w.Code, w.Body.String()
	}
	h := HandlerWith(Options{Maps: maps})
	for _, name := range []string{"yard", "arena"} {
		if code, body := get(h, name); code != http.StatusOK || !strings.Contains(body, `"name": "`+name+`"`) {
			t.Errorf("%s: %d %.80s", name, code, body)
		}
	}
	for _, name := range []string{"yard.json", "..%2fyard", "atlantis"} {
		if code, _ := get(h, name); code != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", name, code)
		}
	}
	if code, _ := get(Handler(), "yard"); code != http.StatusNotFound {
		t.Errorf("yard without Maps: %d, want 404", code)
	}
}
