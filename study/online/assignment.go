package online

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Assignment is what a game server needs to serve one match of an
// online study as a session of lagkit study run: the flags the local
// allocator gives its process, and the annotations the Agones
// allocator puts on the GameServer it allocates.
type Assignment struct {
	// Match is the lobby's match id.
	Match int
	// Study is the study the session joins (its id in the database).
	Study int64
	// Group is the counterbalancing group the session plays.
	Group int
	// Codes are the participant codes of the people's seats, by seat;
	// Absent the people's seats played by bots.
	Codes  map[int]string
	Absent []int
	// Seed is the seed of the session's bots; Quick cuts its rounds
	// short (lagkit study run --quick).
	Seed  uint64
	Quick bool
}

// The annotation keys of an Assignment on a GameServer.
const (
	AnnotationPrefix = "lagkit.dev/"
	keyMatch         = AnnotationPrefix + "match"
	keyStudy         = AnnotationPrefix + "study"
	keyGroup         = AnnotationPrefix + "group"
	keyCodes         = AnnotationPrefix + "codes"
	keyAbsent        = AnnotationPrefix + "absent"
	keySeed          = AnnotationPrefix + "seed"
	keyQuick         = AnnotationPrefix + "quick"
)

// Annotations returns a as Kubernetes annotations: lagkit.dev/match,
// study, group, seed and quick as decimals (quick: "true" or "false"),
// codes as SEAT=CODE,... in seat order and absent as SEAT,....
func (a Assignment) Annotations() map[string]string {
	seats := slices.Sorted(maps.Keys(a.Codes))
	pairs := make([]string, len(seats))
	for i, seat := range seats {
		pairs[i] = strconv.Itoa(seat) + "=" + a.Codes[seat]
	}
	absent := make([]string, len(a.Absent))
	for i, seat := range a.Absent {
		absent[i] = strconv.Itoa(seat)
	}
	return map[string]string{
		keyMatch:  strconv.Itoa(a.Match),
		keyStudy:  strconv.FormatInt(a.Study, 10),
		keyGroup:  strconv.Itoa(a.Group),
		keyCodes:  strings.Join(pairs, ","),
		keyAbsent: strings.Join(absent, ","),
		keySeed:   strconv.FormatUint(a.Seed, 10),
		keyQuick:  strconv.FormatBool(a.Quick),
	}
}

// ParseAssignment reads an Assignment from a GameServer's annotations,
// as Annotations writes it.
func ParseAssignment(ann map[string]string) (Assignment, error) {
	var a Assignment
	get := func(key string) (string, error) {
		v, ok := ann[key]
		if !ok {
			return "", fmt.Errorf("online: annotation %s missing (was the GameServer allocated by lagkit study lobby?)", key)
		}
		return v, nil
	}
	num := func(key string, bits int) (int64, error) {
		v, err := get(key)
		if err != nil {
			return 0, err
		}
		n, err := strconv.ParseInt(v, 10, bits)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("online: annotation %s=%q: want a number from 0", key, v)
		}
		return n, nil
	}
	n, err := num(keyMatch, 32)
	if err != nil {
		return a, err
	}
	a.Match = int(n)
	if a.Study, err = num(keyStudy, 64); err != nil {
		return a, err
	}
	if a.Study == 0 {
		return a, fmt.Errorf("online: annotation %s=0: want a study's id", keyStudy)
	}
	if n, err = num(keyGroup, 32); err != nil {
		return a, err
	}
	a.Group = int(n)
	v, err := get(keySeed)
	if err != nil {
		return a, err
	}
	if a.Seed, err = strconv.ParseUint(v, 10, 64); err != nil {
		return a, fmt.Errorf("online: annotation %s=%q: want a number from 0", keySeed, v)
	}
	if v, err = get(keyQuick); err != nil {
		return a, err
	}
	if a.Quick, err = strconv.ParseBool(v); err != nil {
		return a, fmt.Errorf("online: annotation %s=%q: want true or false", keyQuick, v)
	}
	if v, err = get(keyCodes); err != nil {
		return a, err
	}
	a.Codes = map[int]string{}
	for _, pair := range split(v) {
		k, code, ok := strings.Cut(pair, "=")
		seat, err := strconv.Atoi(k)
		if !ok || err != nil || seat < 0 || code == "" {
			return a, fmt.Errorf("online: annotation %s: %q: want SEAT=CODE", keyCodes, pair)
		}
		if _, dup := a.Codes[seat]; dup {
			return a, fmt.Errorf("online: annotation %s: seat %d twice", keyCodes, seat)
		}
		a.Codes[seat] = code
	}
	if v, err = get(keyAbsent); err != nil {
		return a, err
	}
	for _, s := range split(v) {
		seat, err := strconv.Atoi(s)
		if err != nil || seat < 0 {
			return a, fmt.Errorf("online: annotation %s: %q: want a seat number", keyAbsent, s)
		}
		a.Absent = append(a.Absent, seat)
	}
	return a, nil
}

// split splits a comma-separated list; "" is none.
func split(v string) []string {
	if v == "" {
		return nil
	}
	return strings.Split(v, ",")
}
