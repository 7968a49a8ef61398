// Package registry keeps one family of interchangeable techniques by
// name (lag compensation policies, time delay modes, display modes,
// replication modes, game modes): in the order help lists them, with
// the same words for listing, looking up and refusing an unknown name in
// every family, so help, config readers and study schedules agree.
package registry

import (
	"fmt"
	"strings"
)

// Entry is one technique: its name and what the family keeps for it (a
// constructor, a value).
type Entry[T any] struct {
	Name string
	Item T
}

// Registry is a family of techniques. It is built once, at package
// initialisation, and read only after.
type Registry[T any] struct {
	family  string
	entries []Entry[T]
}

// New returns the family called family ("policy", "display mode") with
// entries, in the order help lists them. Names must be unique.
func New[T any](family string, entries ...Entry[T]) *Registry[T] {
	seen := map[string]bool{}
	for _, e := range entries {
		if seen[e.Name] || e.Name == "" {
			panic(fmt.Sprintf("registry: %s %q registered twice or empty", family, e.Name))
		}
		seen[e.Name] = true
	}
	return &Registry[T]{family: family, entries: entries}
}

// Names returns the names, in order.
func (r *Registry[T]) Names() []string {
	names := make([]string, len(r.entries))
	for i, e := range r.entries {
		names[i] = e.Name
	}
	return names
}

// Lookup returns what is registered as name, or an *UnknownError.
func (r *Registry[T]) Lookup(name string) (T, error) {
	for _, e := range r.entries {
		if e.Name == name {
			return e.Item, nil
		}
	}
	var zero T
	return zero, &UnknownError{Family: r.family, Name: name, Known: r.Names()}
}

// Has reports whether name is registered.
func (r *Registry[T]) Has(name string) bool { return r.Check(name) == nil }

// Check returns nil for a registered name, else Lookup's *UnknownError:
// for a caller that only validates, whatever the family keeps.
func (r *Registry[T]) Check(name string) error {
	_, err := r.Lookup(name)
	return err
}

// Checker is what every Registry is to a caller that only validates
// names.
type Checker interface{ Check(name string) error }

// UnknownError is a name no technique of the family has.
type UnknownError struct {
	Family, Name string
	Known        []string
}

func (e *UnknownError) Error() string {
	return fmt.Sprintf("unknown %s %q, want %s", e.Family, e.Name, OneOf(e.Known))
}

// OneOf joins names for people: "a", "a or b", "a, b or c".
func OneOf(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
