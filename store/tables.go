package store

import (
	"database/sql/driver"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/lagkit/lagkit/record"
)

// field binds one column to one field of a record: its value to store,
// how to read it back, its CSV cell, and whether it can be stored at all.
type field interface {
	driver.Valuer
	Scan(src any) error
	// cell appends the field's CSV cell: numbers as numbers, times in
	// ISO 8601 (UTC), match times and durations in seconds.
	cell(b []byte) []byte
	// check refuses a value one of the databases cannot keep as given.
	check() error
}

// column is a table column and its CSV header.
type column struct {
	name, csv string
	// keep marks a column that may be NULL and that an upsert keeps when
	// the new row leaves it NULL (a round's start time, given when it
	// starts and missing from the record that ends it).
	keep bool
}

// table is how one record type is stored.
type table struct {
	name string
	cols []column
	// key names the columns (after study_id) a record replaces an earlier
	// one by; nil for tables of events, keyed by seq.
	key []string
	// bind returns the fields of the record p points to, in cols' order.
	bind func(p any) []field
}

// The tables, in the order export writes them.
var (
	studiesTable = &table{name: "studies", cols: cols("name", "schedule", "seed", "simulated", "started_ns:started:keep", "schedule_key",
		"design", "counterbalance_group", "lagkit_version", "vcs_revision", "vcs_modified", "go_version", "build_note", "tick_rate", "consent", "shortened_ns:shortened_s"),
		bind: func(p any) []field {
			s := p.(*record.Study)
			return []field{str{&s.Name}, str{&s.Schedule}, u64{&s.Seed}, boolean{&s.Simulated}, wall{&s.Started}, str{&s.ScheduleKey},
				str{&s.Design}, integer{&s.Group}, str{&s.Version}, str{&s.Revision}, boolean{&s.Modified}, str{&s.GoVersion},
				str{&s.BuildNote}, integer{&s.TickRate}, str{&s.Consent}, dur{&s.Shortened}}
		}}
	techniquesTable = &table{name: "techniques", key: []string{"name"}, cols: cols("name:technique", "setting"),
		bind: func(p any) []field {
			r := p.(*record.Technique)
			return []field{str{&r.Name}, str{&r.Setting}}
		}}
	seatOrdersTable = &table{name: "seat_orders", key: []string{"seat"}, cols: cols("seat", "counterbalance_group", "design", "technique_order"),
		bind: func(p any) []field {
			r := p.(*record.SeatOrder)
			return []field{integer{&r.Seat}, integer{&r.Group}, str{&r.Design}, str{&r.Order}}
		}}
	roundsTable = &table{name: "rounds", key: []string{"idx"},
		cols: cols("idx:round", "name", "map", "mode", "technique", "setting", "duration_ns:duration_s", "started_ns:started:keep", "ended_ns:ended:keep",
			"planned_ns:planned_s", "paused_ns:paused_s", "seed", "weapons", "cut"),
		bind: func(p any) []field {
			r := p.(*record.Round)
			return []field{roundNo{&r.Index}, str{&r.Name}, str{&r.Map}, str{&r.Mode}, str{&r.Technique}, str{&r.Setting},
				dur{&r.Duration}, wall{&r.Started}, wall{&r.Ended}, dur{&r.Planned}, dur{&r.Paused}, u64{&r.Seed}, str{&r.Weapons},
				boolean{&r.Cut}}
		}}
	networkTable = &table{name: "network", key: []string{"seat", "round"},
		cols: cols("seat", "round", "latency_ms", "jitter_ms", "loss", "rtt_mean_ms", "rtt_p50_ms", "rtt_p95_ms", "rtt_jitter_ms", "rtt_samples",
			"client_rtt_mean_ms", "client_rtt_jitter_ms", "client_samples", "loss_up", "loss_down", "delay_up_ms", "delay_down_ms", "target_rtt_ms"),
		bind: func(p any) []field {
			r := p.(*record.Network)
			return []field{integer{&r.Seat}, roundNo{&r.Round}, float{&r.LatencyMS}, float{&r.JitterMS}, float{&r.Loss},
				float{&r.RTTMeanMS}, float{&r.RTTP50MS}, float{&r.RTTP95MS}, float{&r.RTTJitterMS}, integer{&r.RTTSamples},
				float{&r.ClientRTTMeanMS}, float{&r.ClientRTTJitterMS}, integer{&r.ClientSamples},
				float{&r.LossUp}, float{&r.LossDown}, float{&r.DelayUpMS}, float{&r.DelayDownMS}, float{&r.TargetRTTMS}}
		}}
	eventsTable = &table{name: "events", cols: cols("round", "kind", "detail", "at_ns:at"),
		bind: func(p any) []field {
			r := p.(*record.Event)
			return []field{roundNo{&r.Round}, str{&r.Kind}, str{&r.Detail}, wall{&r.At}}
		}}
	participantsTable = &table{name: "participants", key: []string{"seat", "round"},
		cols: cols("seat", "round", "code", "team", "bot", "latency_ms", "jitter_ms", "loss", "target_rtt_ms", "stand_in", "stand_in_ns:stand_in_s", "person"),
		bind: func(p any) []field {
			r := p.(*record.Participant)
			return []field{integer{&r.Seat}, roundNo{&r.Round}, str{&r.Code}, integer{&r.Team}, boolean{&r.Bot}, float{&r.LatencyMS},
				float{&r.JitterMS}, float{&r.Loss}, float{&r.TargetRTTMS}, boolean{&r.StandIn}, dur{&r.StandInAt}, boolean{&r.Person}}
		}}
	sessionsTable = &table{name: "sessions", cols: cols("round", "seat", "kind", "reason", "transport", "at_ns:at"),
		bind: func(p any) []field {
			r := p.(*record.Session)
			return []field{roundNo{&r.Round}, integer{&r.Seat}, str{&r.Kind}, str{&r.Reason}, str{&r.Transport}, wall{&r.At}}
		}}
	shotsTable = &table{name: "shots",
		cols: cols("round", "t_ns:time_s", "shooter", "shot_tick", "victim", "weapon", "part", "policy", "hit", "registered",
			"damage", "rewind_ms", "rollback_m", "objective_sbc", "appeal", "kill", "eye_x", "eye_y", "eye_z", "aim_yaw_deg", "aim_pitch_deg",
			"view_ns:view_time_s", "client_verdict", "sbc_known", "server_sbc"),
		bind: func(p any) []field {
			r := p.(*record.Shot)
			return []field{roundNo{&r.Round}, dur{&r.At}, integer{&r.Shooter}, u32{&r.ShotTick}, integer{&r.Victim}, u8{&r.Weapon},
				str{&r.Part}, str{&r.Policy}, boolean{&r.Hit}, boolean{&r.Registered}, integer{&r.Damage}, float{&r.RewindMS},
				float{&r.RollbackM}, boolean{&r.ObjectiveSBC}, str{&r.Appeal}, boolean{&r.Kill}, float{&r.EyeX}, float{&r.EyeY}, float{&r.EyeZ},
				float{&r.AimYawDeg}, float{&r.AimPitchDeg}, dur{&r.ViewAt}, verdict{&r.ClientVerdict}, boolean{&r.SBCKnown},
				boolean{&r.ServerSBC}}
		}}
	killsTable = &table{name: "kills", cols: cols("round", "t_ns:time_s", "killer", "victim", "weapon"),
		bind: func(p any) []field {
			r := p.(*record.Kill)
			return []field{roundNo{&r.Round}, dur{&r.At}, integer{&r.Killer}, integer{&r.Victim}, u8{&r.Weapon}}
		}}
	duelsTable = &table{name: "duels",
		cols: cols("round", "t_ns:time_s", "seat_a", "seat_b", "sight_a_ms", "sight_b_ms", "shot_a_ms", "shot_b_ms", "first_hit", "killer",
			"both_saw", "first_seer", "advantage_ms", "expected_ms"),
		bind: func(p any) []field {
			r := p.(*record.Duel)
			return []field{roundNo{&r.Round}, dur{&r.At}, integer{&r.A}, integer{&r.B}, float{&r.SightAMS}, float{&r.SightBMS},
				float{&r.ShotAMS}, float{&r.ShotBMS}, integer{&r.FirstHit}, integer{&r.Killer}, boolean{&r.Both}, integer{&r.First},
				float{&r.AdvantageMS}, float{&r.ExpectedMS}}
		}}
	objectivesTable = &table{name: "objectives", cols: cols("round", "t_ns:time_s", "seat", "team", "kind"),
		bind: func(p any) []field {
			r := p.(*record.Objective)
			return []field{roundNo{&r.Round}, dur{&r.At}, integer{&r.Seat}, integer{&r.Team}, str{&r.Kind}}
		}}
	sbcTable = &table{name: "sbc_reports",
		cols: cols("round", "t_ns:time_s", "reporter", "shooter", "shot_tick", "rewind_ms", "rollback_m", "objective_sbc", "appeal"),
		bind: func(p any) []field {
			r := p.(*record.SBCReport)
			return []field{roundNo{&r.Round}, dur{&r.At}, integer{&r.Reporter}, integer{&r.Shooter}, u32{&r.ShotTick},
				float{&r.RewindMS}, float{&r.RollbackM}, boolean{&r.ObjectiveSBC}, str{&r.Appeal}}
		}}
	answersTable = &table{name: "answers", cols: cols("round", "seat", "question", "kind", "value", "answer_text:text", "at_ns:at", "stage"),
		bind: func(p any) []field {
			r := p.(*record.Answer)
			return []field{roundNo{&r.Round}, integer{&r.Seat}, str{&r.Question}, str{&r.Kind}, answerValue{&r.Value, &r.Kind}, str{&r.Text}, wall{&r.At},
				stage{&r.Stage}}
		}}
	questionsTable = &table{name: "questions", key: []string{"question"},
		cols: cols("question", "stage", "position", "kind", "question_text:text", "min_value", "max_value", "choices", "low_anchor", "high_anchor"),
		bind: func(p any) []field {
			r := p.(*record.Question)
			return []field{str{&r.ID}, stage{&r.Stage}, integer{&r.Seq}, str{&r.Kind}, str{&r.Text}, integer{&r.Min}, integer{&r.Max},
				str{&r.Choices}, str{&r.LowAnchor}, str{&r.HighAnchor}}
		}}
	framesTable = &table{name: "frames", key: []string{"seat", "round"},
		cols: cols("seat", "round", "frames", "mean_ms", "p50_ms", "p95_ms", "p99_ms", "max_ms", "at_ns:at", "rtt_mean_ms", "rtt_jitter_ms", "rtt_samples"),
		bind: func(p any) []field {
			r := p.(*record.Frames)
			return []field{integer{&r.Seat}, roundNo{&r.Round}, integer{&r.Frames}, float{&r.MeanMS}, float{&r.P50MS}, float{&r.P95MS},
				float{&r.P99MS}, float{&r.MaxMS}, wall{&r.At}, float{&r.RTTMeanMS}, float{&r.RTTJitterMS}, integer{&r.RTTSamples}}
		}}
	clientsTable = &table{name: "clients", key: []string{"seat", "round"},
		cols: cols("seat", "round", "consented", "at_ns:at", "refresh_hz", "mouse_sensitivity", "user_agent", "screen_w", "screen_h", "pixel_ratio"),
		bind: func(p any) []field {
			r := p.(*record.Client)
			return []field{integer{&r.Seat}, roundNo{&r.Round}, boolean{&r.Consented}, wall{&r.At}, float{&r.RefreshHz}, float{&r.Sensitivity},
				str{&r.UserAgent}, integer{&r.ScreenW}, integer{&r.ScreenH}, float{&r.PixelRatio}}
		}}
	pathsTable = &table{name: "paths", cols: cols("round", "t_ns:time_s", "seat", "team", "x", "y", "z", "yaw_deg", "pitch_deg"),
		bind: func(p any) []field {
			r := p.(*record.Path)
			return []field{roundNo{&r.Round}, dur{&r.At}, integer{&r.Seat}, integer{&r.Team}, float{&r.X}, float{&r.Y}, float{&r.Z},
				float{&r.YawDeg}, float{&r.PitchDeg}}
		}}
)

// Tables lists the names of the tables that hold a study's records, in
// the order an export writes them.
var Tables = []string{"studies", "techniques", "seat_orders", "rounds", "participants", "sessions", "shots", "kills", "objectives", "sbc_reports", "answers", "paths", "network", "events", "questions", "clients", "frames", "duels"}

// cols parses column specs "name[:csv[:keep]]".
func cols(specs ...string) []column {
	out := make([]column, len(specs))
	for i, s := range specs {
		parts := strings.Split(s, ":")
		c := column{name: parts[0], csv: parts[0]}
		if len(parts) > 1 {
			c.csv = parts[1]
		}
		c.keep = len(parts) > 2 && parts[2] == "keep"
		out[i] = c
	}
	return out
}

// tableOf returns the table of r and a pointer to a copy of r to bind.
func tableOf(r record.Record) (*table, any) {
	switch r := r.(type) {
	case record.Study:
		return studiesTable, &r
	case record.SeatOrder:
		return seatOrdersTable, &r
	case record.Technique:
		return techniquesTable, &r
	case record.Round:
		return roundsTable, &r
	case record.Participant:
		return participantsTable, &r
	case record.Session:
		return sessionsTable, &r
	case record.Shot:
		return shotsTable, &r
	case record.Kill:
		return killsTable, &r
	case record.Duel:
		return duelsTable, &r
	case record.Objective:
		return objectivesTable, &r
	case record.SBCReport:
		return sbcTable, &r
	case record.Answer:
		return answersTable, &r
	case record.Path:
		return pathsTable, &r
	case record.Event:
		return eventsTable, &r
	case record.Network:
		return networkTable, &r
	case record.Question:
		return questionsTable, &r
	case record.Client:
		return clientsTable, &r
	case record.Frames:
		return framesTable, &r
	}
	return nil, nil
}

// insertSQL is the statement that stores a record of t in a study: an
// upsert on t's key, or a plain insert.
func (t *table) insertSQL() string {
	names := []string{"study_id", "seq"}
	for _, c := range t.cols {
		names = append(names, c.name)
	}
	q := fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", t.name, strings.Join(names, ", "),
		strings.TrimSuffix(strings.Repeat("?, ", len(names)), ", "))
	if t.key == nil {
		return q
	}
	var set []string
	for _, c := range t.cols {
		switch {
		case contains(t.key, c.name):
		case c.keep:
			set = append(set, fmt.Sprintf("%s = COALESCE(excluded.%s, %s.%s)", c.name, c.name, t.name, c.name))
		default:
			set = append(set, fmt.Sprintf("%s = excluded.%s", c.name, c.name))
		}
	}
	return fmt.Sprintf("%s ON CONFLICT (study_id, %s) DO UPDATE SET %s", q, strings.Join(t.key, ", "), strings.Join(set, ", "))
}

// selectSQL reads a study's records of t in the order they were written.
func (t *table) selectSQL() string {
	return fmt.Sprintf("SELECT %s FROM %s WHERE study_id = ? ORDER BY seq", columnList(t), t.name)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// The field kinds. Each wraps a pointer to the record's field.
type (
	integer struct{ p *int }
	u8      struct{ p *uint8 }
	u32     struct{ p *uint32 }
	// u64 keeps a uint64's bits in a signed BIGINT, the widest integer
	// both databases have.
	u64     struct{ p *uint64 }
	float   struct{ p *float64 }
	boolean struct{ p *bool }
	str     struct{ p *string }
	// wall is a wall-clock time, stored as Unix nanoseconds; the zero
	// time is NULL.
	wall struct{ p *time.Time }
	// dur is a match time or duration, stored as nanoseconds.
	dur struct{ p *time.Duration }
	// stage is the stage a question is put at: empty reads and is
	// stored as record.StageRound.
	stage struct{ p *string }
	// verdict is a shot's client verdict: record.VerdictHit,
	// record.VerdictMiss or "" (unknown).
	verdict struct{ p *string }
	// roundNo is a round's index, from 0 in the database and numbered
	// from 1 in CSV, as the reports number rounds.
	roundNo struct{ p *int }
	// answerValue is an answer's value, empty in CSV for a free-text
	// answer, which has none (the database keeps 0).
	answerValue struct {
		p    *int
		kind *string
	}
)

func (f integer) Value() (driver.Value, error) { return int64(*f.p), nil }
func (f u8) Value() (driver.Value, error)      { return int64(*f.p), nil }
func (f u32) Value() (driver.Value, error)     { return int64(*f.p), nil }
func (f u64) Value() (driver.Value, error)     { return int64(*f.p), nil }
func (f float) Value() (driver.Value, error)   { return *f.p, nil }
func (f boolean) Value() (driver.Value, error) { return *f.p, nil }
func (f str) Value() (driver.Value, error)     { return *f.p, nil }
func (f dur) Value() (driver.Value, error)     { return int64(*f.p), nil }
func (f roundNo) Value() (driver.Value, error) { return int64(*f.p), nil }
func (f answerValue) Value() (driver.Value, error) {
	return int64(*f.p), nil
}
func (f wall) Value() (driver.Value, error) {
	if f.p.IsZero() {
		return nil, nil
	}
	return f.p.UnixNano(), nil
}

func (f integer) Scan(src any) error {
	v, err := scanInt(src, math.MinInt, math.MaxInt)
	*f.p = int(v)
	return err
}
func (f roundNo) Scan(src any) error     { return integer{f.p}.Scan(src) }
func (f answerValue) Scan(src any) error { return integer{f.p}.Scan(src) }
func (f u8) Scan(src any) error {
	v, err := scanInt(src, 0, math.MaxUint8)
	*f.p = uint8(v)
	return err
}
func (f u32) Scan(src any) error {
	v, err := scanInt(src, 0, math.MaxUint32)
	*f.p = uint32(v)
	return err
}
func (f u64) Scan(src any) error {
	v, err := scanInt(src, math.MinInt64, math.MaxInt64)
	*f.p = uint64(v)
	return err
}
func (f dur) Scan(src any) error {
	v, err := scanInt(src, math.MinInt64, math.MaxInt64)
	*f.p = time.Duration(v)
	return err
}
func (f wall) Scan(src any) error {
	if src == nil {
		*f.p = time.Time{}
		return nil
	}
	v, err := scanInt(src, math.MinInt64, math.MaxInt64)
	*f.p = time.Unix(0, v).UTC()
	return err
}
func (f float) Scan(src any) error {
	switch v := src.(type) {
	case float64:
		*f.p = v
	case int64:
		*f.p = float64(v)
	default:
		return fmt.Errorf("want a number, have %T", src)
	}
	return nil
}
func (f boolean) Scan(src any) error {
	switch v := src.(type) {
	case bool:
		*f.p = v
	case int64:
		*f.p = v != 0
	default:
		return fmt.Errorf("want a boolean, have %T", src)
	}
	return nil
}
func (f stage) Value() (driver.Value, error) { return f.get(), nil }
func (f stage) Scan(src any) error           { return str(f).Scan(src) }
func (f stage) cell(b []byte) []byte         { return append(b, f.get()...) }
func (f stage) check() error {
	if s := f.get(); s != record.StageRound && s != record.StageIntake && s != record.StageFinal {
		return fmt.Errorf("stage %q, want %s, %s or %s", s, record.StageRound, record.StageIntake, record.StageFinal)
	}
	return nil
}

func (f verdict) Value() (driver.Value, error) { return *f.p, nil }
func (f verdict) Scan(src any) error           { return str(f).Scan(src) }
func (f verdict) cell(b []byte) []byte         { return str(f).cell(b) }
func (f verdict) check() error {
	if v := *f.p; v != "" && v != record.VerdictHit && v != record.VerdictMiss {
		return fmt.Errorf("client verdict %q, want %s, %s or empty", v, record.VerdictHit, record.VerdictMiss)
	}
	return nil
}

func (f stage) get() string {
	if *f.p == "" {
		return record.StageRound
	}
	return *f.p
}

func (f str) Scan(src any) error {
	switch v := src.(type) {
	case string:
		*f.p = v
	case []byte:
		*f.p = string(v)
	default:
		return fmt.Errorf("want text, have %T", src)
	}
	return nil
}

func scanInt(src any, lo, hi int64) (int64, error) {
	v, ok := src.(int64)
	if !ok {
		return 0, fmt.Errorf("want an integer, have %T", src)
	}
	if v < lo || v > hi {
		return 0, fmt.Errorf("%d is outside %d..%d", v, lo, hi)
	}
	return v, nil
}

func (f integer) cell(b []byte) []byte { return strconv.AppendInt(b, int64(*f.p), 10) }
func (f roundNo) cell(b []byte) []byte { return strconv.AppendInt(b, int64(*f.p)+1, 10) }
func (f answerValue) cell(b []byte) []byte {
	if *f.kind == record.Text {
		return b
	}
	return strconv.AppendInt(b, int64(*f.p), 10)
}
func (f u8) cell(b []byte) []byte      { return strconv.AppendUint(b, uint64(*f.p), 10) }
func (f u32) cell(b []byte) []byte     { return strconv.AppendUint(b, uint64(*f.p), 10) }
func (f u64) cell(b []byte) []byte     { return strconv.AppendUint(b, *f.p, 10) }
func (f float) cell(b []byte) []byte   { return strconv.AppendFloat(b, *f.p, 'g', -1, 64) }
func (f boolean) cell(b []byte) []byte { return strconv.AppendBool(b, *f.p) }
func (f str) cell(b []byte) []byte     { return append(b, *f.p...) }
func (f dur) cell(b []byte) []byte     { return strconv.AppendFloat(b, f.p.Seconds(), 'f', -1, 64) }
func (f wall) cell(b []byte) []byte {
	if f.p.IsZero() {
		return b
	}
	return f.p.UTC().AppendFormat(b, time.RFC3339Nano)
}

func (integer) check() error     { return nil }
func (roundNo) check() error     { return nil }
func (answerValue) check() error { return nil }
func (u8) check() error          { return nil }
func (u32) check() error         { return nil }
func (u64) check() error         { return nil }
func (boolean) check() error     { return nil }
func (dur) check() error         { return nil }

// check refuses NaN and the infinities: SQLite stores NaN as NULL.
func (f float) check() error {
	if math.IsNaN(*f.p) || math.IsInf(*f.p, 0) {
		return fmt.Errorf("%v is not a finite number", *f.p)
	}
	return nil
}

// check refuses text PostgreSQL cannot keep: invalid UTF-8 or a NUL.
func (f str) check() error {
	if !utf8.ValidString(*f.p) {
		return fmt.Errorf("%q is not valid UTF-8", *f.p)
	}
	if strings.IndexByte(*f.p, 0) >= 0 {
		return fmt.Errorf("%q holds a NUL character", *f.p)
	}
	return nil
}

// check refuses times that Unix nanoseconds cannot hold (before 1678 or
// after 2262).
func (f wall) check() error {
	if f.p.IsZero() {
		return nil
	}
	if y := f.p.Year(); y < 1678 || y > 2261 {
		return fmt.Errorf("%v is outside the years 1678 to 2261", *f.p)
	}
	return nil
}

// checkFields returns the first field of t that cannot be stored, named
// by its column.
func checkFields(t *table, fs []field) error {
	for i, f := range fs {
		if err := f.check(); err != nil {
			return fmt.Errorf("%s: %w", t.cols[i].name, err)
		}
	}
	return nil
}
