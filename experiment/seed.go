package experiment

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// seedJSON is a seed as JSON holds it: a decimal string, since seeds use
// all 64 bits and a JavaScript reader rounds numbers beyond 2^53. It
// reads plain numbers too, as files written before seeds were strings
// hold them.
type seedJSON uint64

func (s seedJSON) MarshalJSON() ([]byte, error) {
	return json.Marshal(strconv.FormatUint(uint64(s), 10))
}

func (s *seedJSON) UnmarshalJSON(b []byte) error {
	text := string(b)
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &text); err != nil {
			return err
		}
	}
	v, err := strconv.ParseUint(text, 10, 64)
	if err != nil {
		return fmt.Errorf("seed %s: want a whole number from 0 to 2^64-1", b)
	}
	*s = seedJSON(v)
	return nil
}

// MarshalJSON writes the results with the seed as a string.
func (r Results) MarshalJSON() ([]byte, error) {
	type plain Results
	return json.Marshal(struct {
		plain
		Seed seedJSON `json:"seed"`
	}{plain(r), seedJSON(r.Seed)})
}

// UnmarshalJSON reads results whose seed is a string or a number.
func (r *Results) UnmarshalJSON(b []byte) error {
	type plain Results
	aux := struct {
		*plain
		Seed seedJSON `json:"seed"`
	}{plain: (*plain)(r)}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	r.Seed = uint64(aux.Seed)
	return nil
}

// MarshalJSON writes the cell with its seed as a string.
func (c Cell) MarshalJSON() ([]byte, error) {
	type plain Cell
	return json.Marshal(struct {
		plain
		Seed seedJSON `json:"seed"`
	}{plain(c), seedJSON(c.Seed)})
}

// UnmarshalJSON reads a cell whose seed is a string or a number.
func (c *Cell) UnmarshalJSON(b []byte) error {
	type plain Cell
	aux := struct {
		*plain
		Seed seedJSON `json:"seed"`
	}{plain: (*plain)(c)}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	c.Seed = uint64(aux.Seed)
	return nil
}
