package world

import (
	"errors"
	"testing"
)

// FuzzParse checks that Parse never panics, that every error it returns is
// an *Error, and that a map it accepts survives Encode and Parse unchanged.
func FuzzParse(f *testing.F) {
	for _, name := range Names() {
		data, err := shipped.ReadFile("maps/" + name + ".json")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(validMap))
	f.Add([]byte(`{"name": "x", "bounds": {"min": [0, 0, 0], "max": [1e999, 1, 1]}, "colour": 1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse("fuzz.json", data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is a %T, want *Error", err, err)
			}
			return
		}
		again, err := Parse("fuzz.json", Encode(m))
		if err != nil {
			t.Fatalf("re-parsing the encoded map: %v", err)
		}
		if !sameMap(m, again) {
			t.Fatalf("map changed through Encode and Parse:\n%+v\n%+v", m, again)
		}
	})
}
