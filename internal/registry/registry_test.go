package registry

import (
	"errors"
	"slices"
	"testing"
)

func TestRegistry(t *testing.T) {
	r := New("policy", Entry[int]{"none", 0}, Entry[int]{"tlc", 1}, Entry[int]{"alc", 2})
	if got := r.Names(); !slices.Equal(got, []string{"none", "tlc", "alc"}) {
		t.Errorf("Names %v, want the order registered", got)
	}
	if v, err := r.Lookup("tlc"); v != 1 || err != nil || !r.Has("alc") || r.Has("x") {
		t.Errorf("Lookup(tlc) = %v, %v", v, err)
	}
	_, err := r.Lookup("psychic")
	var u *UnknownError
	if !errors.As(err, &u) || err.Error() != `unknown policy "psychic", want none, tlc or alc` {
		t.Errorf("unknown name: %v", err)
	}
	for _, tc := range []struct {
		in   []string
		want string
	}{{nil, ""}, {[]string{"a"}, "a"}, {[]string{"a", "b"}, "a or b"}, {[]string{"a", "b", "c"}, "a, b or c"}} {
		if got := OneOf(tc.in); got != tc.want {
			t.Errorf("OneOf(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("a name registered twice was taken")
		}
	}()
	New("mode", Entry[int]{"a", 0}, Entry[int]{"a", 1})
}
