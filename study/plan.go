package study

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lagkit/lagkit/client"
	"github.com/lagkit/lagkit/delay"
	"github.com/lagkit/lagkit/game"
	"github.com/lagkit/lagkit/internal/registry"
	"github.com/lagkit/lagkit/lagcomp"
	"github.com/lagkit/lagkit/nav"
	"github.com/lagkit/lagkit/reckoning"
	"github.com/lagkit/lagkit/server"
	"github.com/lagkit/lagkit/shooter"
	"github.com/lagkit/lagkit/shooter/aimassist"
	"github.com/lagkit/lagkit/shooter/mode"
	"github.com/lagkit/lagkit/shooter/scaling"
	"github.com/lagkit/lagkit/shooter/weapon"
	"github.com/lagkit/lagkit/shooter/weapon/weaponfile"
	"github.com/lagkit/lagkit/study/lobby"
	"github.com/lagkit/lagkit/world"
)

// Plan is one round of a schedule, checked and resolved: what a driver
// plays.
type Plan struct {
	Index int
	Name  string
	// Map is the map as the schedule names it; MapPath the shipped map's
	// name or the map file's path.
	Map, MapPath string
	Mode         mode.Kind
	Duration     time.Duration
	Warmup       time.Duration
	Ready        bool
	Interval     time.Duration
	Technique    *Technique
	// Replicate counts the earlier rounds under the same technique: the
	// k-th round of a technique plays the bots of the experiments'
	// replicate k (see experiment.ReplicateSeed).
	Replicate int
	// Weapons is the loadout by name; WeaponsFile the file they come
	// from ("" for the built-in weapons).
	Weapons     []string
	WeaponsFile string
	// Loadout is the loadout as played: Weapons, or the default.
	Loadout []string
	// Links holds each seat's injected link, by seat.
	Links    []Link
	BotSkill float64
	// base is the technique the schedule gives the round: group 0's
	// (see Counterbalance).
	base *Technique
	// condition is the design's condition the round plays in its group
	// ("" when the design does not move it).
	condition string
}

// links returns each seat's link under the schedule's latency then a
// round's own rules.
func (s *Schedule) links(round []LinkRule) []Link {
	out := make([]Link, len(s.seats))
	for _, rule := range slices.Concat(s.Latency, round) {
		l := Link{LatencyMS: rule.LatencyMS, JitterMS: rule.JitterMS, Loss: rule.Loss, TargetRTTMS: rule.TargetRTTMS}
		if len(rule.Seats) == 0 {
			for k := range out {
				out[k] = l
			}
		}
		for _, seat := range rule.Seats {
			out[seat] = l
		}
	}
	return out
}

// Link is what is injected on one seat's link, each direction.
type Link struct {
	LatencyMS float64 `json:"latency_ms"`
	JitterMS  float64 `json:"jitter_ms"`
	Loss      float64 `json:"loss"`
	// TargetRTTMS is a round trip held whatever the seat's own network
	// adds (LinkRule.TargetRTTMS; 0: none).
	TargetRTTMS float64 `json:"target_rtt_ms,omitempty"`
}

// RTTMS returns the round trip the link names: its target, or twice
// its one-way latency.
func (l Link) RTTMS() float64 {
	if l.TargetRTTMS > 0 {
		return l.TargetRTTMS
	}
	return 2 * l.LatencyMS
}

// LeadIn is the part of the round before the measured part: the warm-up
// and, when the round waits for ready, the countdown.
func (p *Plan) LeadIn() time.Duration {
	if p.Ready {
		return p.Warmup + Countdown
	}
	return p.Warmup
}

// checkTechniques checks the techniques and returns them by name.
func (s *Schedule) checkTechniques() (map[string]*Technique, *problem) {
	if len(s.Techniques) == 0 {
		return nil, fail("technique", "no [[technique]] table: name at least one, such as policy tlc")
	}
	if len(s.Techniques) > MaxRounds {
		return nil, fail("technique", "%d techniques, want at most %d", len(s.Techniques), MaxRounds)
	}
	out := map[string]*Technique{}
	for i := range s.Techniques {
		t := &s.Techniques[i]
		at := fmt.Sprintf("technique[%d].", i)
		switch {
		case t.Name == "":
			return nil, fail(at+"name", "missing: name the technique, as rounds refer to it")
		case !idPattern.MatchString(t.Name):
			return nil, fail(at+"name", "%q: want 1 to 32 lower-case letters, digits, - or _", t.Name)
		case out[t.Name] != nil:
			return nil, fail(at+"name", "%q names an earlier technique", t.Name)
		}
		if p := t.check(); p != nil {
			return nil, p.Within(at)
		}
		out[t.Name] = t
	}
	return out, nil
}

// check checks a technique on its own and fills in its defaults.
func (t *Technique) check() *problem {
	if t.Policy.Name == "" {
		t.Policy.Name = "tlc"
	}
	if t.Replication == "" {
		t.Replication = "full"
	}
	if err := lagcomp.Policies.Check(t.Policy.Name); err != nil {
		return fail("policy.name", "%v", err)
	}
	if _, err := lagcomp.New(t.Policy); err != nil {
		return fail("policy", "%s", cause(err))
	}
	for _, f := range []struct {
		key, name string
		family    registry.Checker
	}{
		{"delay.mode", t.Delay.Mode, delay.Modes},
		{"delay.trigger", t.Delay.Trigger, delay.Triggers},
		{"replication", t.Replication, reckoning.Replications},
		{"display", t.Display, client.Displays},
		{"feedback", t.Feedback, client.Feedbacks},
	} {
		if err := f.family.Check(f.name); f.name != "" && err != nil {
			return fail(f.key, "%v", err)
		}
	}
	switch {
	case t.Prediction && t.Display != "" && t.Display != client.Extrapolate.Name():
		return fail("prediction", "prediction draws opponents extrapolated, but display is %s", t.Display)
	case t.Display != "" && t.Replication != "full":
		return fail("display", "replication %s draws players by its own dead reckoning: leave display out", t.Replication)
	case t.Prediction && t.Replication != "full":
		return fail("prediction", "replication %s draws players by its own dead reckoning: prediction needs replication full", t.Replication)
	case t.Delay.Mode != delay.Adaptive && t.Delay.Adaptation != 0:
		return fail("delay.adaptation", "only adaptive delay adapts: give mode adaptive or leave adaptation out")
	case t.Delay.Mode != delay.Adaptive && t.Delay.Trigger != "":
		return fail("delay.trigger", "only adaptive delay has a trigger: give mode adaptive or leave trigger out")
	case (t.PlaceboMS != 0 || t.PlaceboScale != 0) && t.Feedback != "placebo":
		return fail("feedback", "placebo_ms and placebo_scale apply only to feedback placebo")
	case !(t.PlaceboMS >= 0 && t.PlaceboMS <= 65535):
		return fail("placebo_ms", "%v, want 0 to 65535", t.PlaceboMS)
	case !(t.PlaceboScale >= 0 && t.PlaceboScale <= 65.535):
		return fail("placebo_scale", "%v, want 0 to 65.535", t.PlaceboScale)
	case t.TimeWarp < 0 || time.Duration(t.TimeWarp) > time.Second:
		return fail("time_warp", "%v, want 0 (off) to 1s", time.Duration(t.TimeWarp))
	}
	if t.Scaling.Name == "" {
		t.Scaling.Name = scaling.None
	}
	if err := scaling.Modes.Check(t.Scaling.Name); err != nil {
		return fail("scaling.name", "%v", err)
	}
	if _, err := scaling.New(t.Scaling); err != nil {
		return fail("scaling", "%s", cause(err))
	}
	if t.AimAssist.Name == "" {
		t.AimAssist.Name = aimassist.None
	}
	if _, err := aimassist.New(t.AimAssist); err != nil {
		return fail("aim_assist", "%s", cause(err))
	}
	if _, err := t.delayConfig().WithDefaults(); err != nil {
		return fail("delay.adaptation", "%s", cause(err))
	}
	return nil
}

func (t *Technique) delayConfig() delay.Config {
	return delay.Config{Mode: t.Delay.Mode, Trigger: t.Delay.Trigger, Adaptation: time.Duration(t.Delay.Adaptation)}
}

// PredictionOff reports whether clients show their own player unpredicted
// under t (ClientPrediction false).
func (t *Technique) PredictionOff() bool { return t.ClientPrediction != nil && !*t.ClientPrediction }

// display returns the display mode the clients use: extrapolation under
// prediction, else the named one (nil: the client's default).
func (t *Technique) display() client.Display {
	name := t.Display
	if t.Prediction {
		name = client.Extrapolate.Name()
	}
	if name == "" {
		return nil
	}
	d, _ := client.Displays.Lookup(name) // checked by check
	return d
}

// Shown returns the feedback a study mandates to every page under the
// technique: its own, or none when it sets none, so that a participant
// sees nothing of the condition (no round trip, policy or injected
// latency) unless the schedule makes what is shown a condition of its
// own. A participant who saw "policy alc" or "injected 125 ms" could no
// longer be blind to the manipulation.
func (t *Technique) Shown() string {
	if t.Feedback == "" {
		return "none"
	}
	return t.Feedback
}

// ShownText says in words what a participant's page shows of the
// network under the technique, for study check.
func (t *Technique) ShownText() string {
	switch t.Shown() {
	case "none":
		return "nothing of the network or the condition"
	case "ping":
		return "a ping (the measured round trip)"
	case "netgraph":
		return "the net graph (round trip, jitter, loss; not the policy or injected latency)"
	case "placebo":
		if t.PlaceboMS != 0 {
			return fmt.Sprintf("a placebo ping of %s ms", strconv.FormatFloat(t.PlaceboMS, 'g', -1, 64))
		}
		scale := t.PlaceboScale
		if scale == 0 {
			scale = client.DefaultPlaceboScale
		}
		return fmt.Sprintf("a placebo ping, the round trip times %s", strconv.FormatFloat(scale, 'g', -1, 64))
	}
	return t.Shown()
}

// DisplayName returns the display mode every client draws the others
// with under t, as a server mandates it: extrapolation under
// prediction, else the named one or interpolation; empty under
// threshold replication, which draws by its own dead reckoning.
func (t *Technique) DisplayName() string {
	switch {
	case t.Replication != "" && t.Replication != "full":
		return ""
	case t.display() != nil:
		return t.display().Name()
	}
	return client.Interpolate.Name()
}

// String writes the technique in the compact "key=value ..." form of
// record.Round.Setting.
func (t *Technique) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "policy=%s", t.Policy.Name)
	for _, kv := range []struct {
		k string
		v float64
	}{
		{"max_rtt_ms", t.Policy.MaxRTTms}, {"max_rollback_m", t.Policy.MaxRollbackM},
		{"max_rollback_fast_m", t.Policy.MaxRollbackFastM}, {"fast_speed_mps", t.Policy.FastSpeed},
		{"low_ping_ms", t.Policy.LowPingMS},
	} {
		if kv.v != 0 {
			fmt.Fprintf(&b, " %s=%s", kv.k, strconv.FormatFloat(kv.v, 'g', -1, 64))
		}
	}
	dm := t.Delay.Mode
	if dm == "" {
		dm = delay.None
	}
	fmt.Fprintf(&b, " delay=%s", dm)
	if dm == delay.Adaptive {
		if t.Delay.Trigger != "" {
			fmt.Fprintf(&b, " trigger=%s", t.Delay.Trigger)
		}
		fmt.Fprintf(&b, " adaptation=%v", time.Duration(t.Delay.Adaptation))
	}
	fmt.Fprintf(&b, " time_warp=%v", time.Duration(t.TimeWarp))
	pred := "off"
	if t.Prediction {
		pred = "on"
	}
	display := "interpolate"
	switch {
	case t.Replication != "full":
		display = "dead-reckon"
	case t.display() != nil:
		display = t.display().Name()
	}
	fmt.Fprintf(&b, " prediction=%s replication=%s display=%s", pred, t.Replication, display)
	if t.PredictionOff() {
		b.WriteString(" client_prediction=off")
	}
	if t.AimAssist.Name != "" && t.AimAssist.Name != aimassist.None {
		fmt.Fprintf(&b, " aim_assist=%s", t.AimAssist.Name)
		for _, kv := range []struct {
			k string
			v float64
		}{{"cone_deg", t.AimAssist.ConeDeg}, {"per_second_deg", t.AimAssist.PerSecondDeg}, {"area_deg", t.AimAssist.AreaDeg}} {
			if kv.v != 0 {
				fmt.Fprintf(&b, " %s=%s", kv.k, strconv.FormatFloat(kv.v, 'g', -1, 64))
			}
		}
	}
	if t.Feedback != "" {
		fmt.Fprintf(&b, " feedback=%s", t.Feedback)
		if t.PlaceboMS != 0 {
			fmt.Fprintf(&b, " placebo_ms=%s", strconv.FormatFloat(t.PlaceboMS, 'g', -1, 64))
		}
		if t.PlaceboScale != 0 {
			fmt.Fprintf(&b, " placebo_scale=%s", strconv.FormatFloat(t.PlaceboScale, 'g', -1, 64))
		}
	}
	if t.Scaling.Name != "" && t.Scaling.Name != scaling.None {
		fmt.Fprintf(&b, " scaling=%s", t.Scaling.Name)
		for _, kv := range []struct {
			k string
			v float64
		}{
			{"factor", t.Scaling.Factor}, {"per_second", t.Scaling.PerSecond}, {"max", t.Scaling.Max},
			{"latency_coef", t.Scaling.LatencyCoef}, {"latency2_coef", t.Scaling.Latency2Coef},
			{"scale_coef", t.Scaling.ScaleCoef}, {"interaction_coef", t.Scaling.InteractionCoef},
		} {
			if kv.v != 0 {
				fmt.Fprintf(&b, " %s=%s", kv.k, strconv.FormatFloat(kv.v, 'g', -1, 64))
			}
		}
	}
	return b.String()
}

// resolver resolves rounds, loading each map and weapons file once.
type resolver struct {
	s       *Schedule
	maps    map[string]*world.Map
	weapons []weapon.Weapon
	wErr    error
	counts  map[string]int
}

func newResolver(s *Schedule) *resolver {
	r := &resolver{s: s, maps: map[string]*world.Map{}, counts: map[string]int{}}
	return r
}

// loadMap returns the map a round names, checked for bots to walk.
func (r *resolver) loadMap(name string) (*world.Map, string, *problem) {
	path := name
	if strings.HasSuffix(name, ".json") {
		path = r.s.resolvePath(name)
	}
	if m, ok := r.maps[path]; ok {
		return m, path, nil
	}
	var m *world.Map
	var err error
	if strings.HasSuffix(name, ".json") {
		m, err = world.LoadFile(path)
	} else {
		m, err = world.Load(name)
	}
	if err != nil {
		return nil, "", fail("map", "%s", cause(err))
	}
	params := game.DefaultParams()
	grid, err := nav.Build(m, &params)
	if err == nil {
		err = nav.Check(m, grid)
	}
	if err != nil {
		return nil, "", fail("map", "%s: %s", name, cause(err))
	}
	r.maps[path] = m
	return m, path, nil
}

// loadout returns the weapons of names, from the schedule's weapons file
// when it names one.
func (r *resolver) loadout(names []string) ([]weapon.Weapon, *problem) {
	all := weapon.Defaults()
	if r.s.WeaponsFile != "" {
		if r.weapons == nil && r.wErr == nil {
			r.weapons, r.wErr = weaponfile.Load(r.s.resolvePath(r.s.WeaponsFile))
		}
		if r.wErr != nil {
			return nil, fail("weapons", "weapons_file: %s", r.wErr)
		}
		all = r.weapons
	}
	if len(names) == 0 {
		names = []string{all[0].Name}
	}
	known := make([]string, len(all))
	for i, w := range all {
		known[i] = w.Name
	}
	for i, n := range names {
		if !slices.Contains(known, n) {
			return nil, fail(fmt.Sprintf("weapons[%d]", i), "unknown weapon %q, want one of %s", n, strings.Join(known, ", "))
		}
	}
	ws, err := weapon.Select(all, names)
	if err != nil {
		return nil, fail("weapons", "%s", cause(err))
	}
	return ws, nil
}

// round checks and resolves round i. It returns every problem of the
// round that can be found apart (each field on its own; the server's
// check of the whole round only when its parts are sound), so that
// study check lists them all at once.
func (r *resolver) round(i int, techs map[string]*Technique) (*Plan, []*problem) {
	rd := &r.s.Rounds[i]
	plan := &Plan{
		Index: i, Name: rd.Name, Map: rd.Map, Mode: mode.Kind(rd.Mode), Ready: rd.Ready,
		Duration: time.Duration(rd.Duration), Warmup: time.Duration(rd.Warmup), Interval: time.Duration(rd.Interval),
		Weapons: rd.Weapons, BotSkill: r.s.BotSkill,
	}
	if plan.Name == "" {
		plan.Name = fmt.Sprintf("round %d", i+1)
	}
	modes := mode.Kinds.Names()
	var probs []*problem
	add := func(p *problem) { probs = append(probs, p) }
	if len(plan.Name) > maxName {
		add(fail("name", "%d bytes, want at most %d", len(plan.Name), maxName))
	}
	if rd.Map == "" {
		add(fail("map", "missing: a shipped map (%s) or a map file (.json)", strings.Join(world.Names(), ", ")))
	}
	switch {
	case rd.Mode == "":
		add(fail("mode", "missing: one of %s", strings.Join(modes, ", ")))
	case !slices.Contains(modes, rd.Mode):
		add(fail("mode", "unknown mode %q, want one of %s", rd.Mode, strings.Join(modes, ", ")))
	}
	if plan.Duration < time.Second || plan.Duration > maxDuration {
		add(fail("duration", "%v, want 1s to 99:59", plan.Duration))
	}
	if plan.Warmup < 0 || plan.Warmup > 10*time.Minute {
		add(fail("warmup", "%v, want 0 to 10m", plan.Warmup))
	}
	if plan.Interval < 0 || plan.Interval > time.Hour {
		add(fail("interval", "%v, want 0 to 1h", plan.Interval))
	}
	switch t := techs[rd.Technique]; {
	case rd.Technique == "" && len(techs) == 1:
		for _, only := range techs {
			plan.Technique = only
		}
	case rd.Technique == "":
		add(fail("technique", "missing: the schedule has several techniques (%s)", strings.Join(r.s.techniqueNames(), ", ")))
	case t == nil:
		add(fail("technique", "unknown technique %q, want one of %s", rd.Technique, strings.Join(r.s.techniqueNames(), ", ")))
	default:
		plan.Technique = t
	}
	var m *world.Map
	if rd.Map != "" {
		var path string
		var p *problem
		if m, path, p = r.loadMap(rd.Map); p != nil {
			add(p)
		}
		plan.MapPath = path
	}
	ws, p := r.loadout(rd.Weapons)
	if p != nil {
		add(p)
	}
	if p := checkRules(rd.Latency, "latency", len(r.s.seats)); p != nil {
		add(p)
	}
	if len(probs) > 0 {
		return nil, probs
	}
	plan.base = plan.Technique
	plan.Replicate = r.counts[plan.Technique.Name]
	r.counts[plan.Technique.Name]++
	for _, w := range ws {
		plan.Loadout = append(plan.Loadout, w.Name)
	}
	if r.s.WeaponsFile != "" {
		plan.WeaponsFile = r.s.resolvePath(r.s.WeaponsFile)
	}
	plan.Links = r.s.links(rd.Latency)
	if p := r.checkServer(plan, m, ws); p != nil {
		return nil, []*problem{p}
	}
	// Counterbalancing may give the round any technique of its design's
	// list: each must fit the round's map and mode.
	if c := r.s.Counterbalance; c != nil && slices.Contains(c.Techniques, plan.Technique.Name) {
		for _, name := range c.Techniques {
			other := *plan
			other.Technique = techs[name]
			if p := r.checkServer(&other, m, ws); p != nil {
				return nil, []*problem{fail("technique", "counterbalancing gives this round technique %q in some groups, which does not fit it: %s", name, p.Msg)}
			}
		}
	}
	return plan, nil
}

// checkServer has the server check the round's technique against its
// map and mode: what no part checks alone (time warp's policy and mode,
// led reckoning's trend maps, a mode's objectives on the map).
func (r *resolver) checkServer(plan *Plan, m *world.Map, ws []weapon.Weapon) *problem {
	t := plan.Technique
	modeCfg := mode.Config{Mode: plan.Mode, Duration: plan.LeadIn() + plan.Duration}
	if _, err := mode.New(modeCfg, m, len(r.s.seats)); err != nil {
		return fail("mode", "%s", cause(err))
	}
	rep, err := server.ThresholdReplication(t.Replication, plan.MapPath)
	if err != nil {
		return fail("technique", "technique %q on map %s: %s", t.Name, plan.Map, cause(err))
	}
	params := game.DefaultParams()
	cfg := server.Config{
		Map: m, TickRate: 64, MaxClients: len(r.s.seats), Movement: &params,
		Policy: t.Policy, Rules: shooter.Rules(modeCfg), Delay: t.delayConfig(), TimeWarp: time.Duration(t.TimeWarp), Replication: rep,
		Adjust: shooter.Adjust(t.Scaling, t.AimAssist),
	}
	if err = shooter.Arm(&cfg, ws); err == nil {
		_, err = server.New(cfg)
	}
	if err != nil {
		return fail("technique", "technique %q in mode %s: %s", t.Name, plan.Mode, cause(err))
	}
	return nil
}

func (s *Schedule) techniqueNames() []string {
	names := make([]string, len(s.Techniques))
	for i, t := range s.Techniques {
		names[i] = t.Name
	}
	return names
}

// cause returns err's message without the package prefixes ("server:
// config: ", "lagcomp: ") that name code rather than the file's key.
func cause(err error) string { return pkgPrefix.ReplaceAllString(err.Error(), "") }

var pkgPrefix = regexp.MustCompile(`^(?:[a-z]+: )+`)

// Shorten caps every round at d and drops warm-ups and intervals, for a
// quick trial of a schedule; the countdown of a round that waits for
// ready stays.
func (s *Schedule) Shorten(d time.Duration) {
	s.shortened = d
	for _, p := range s.plans {
		p.Duration = min(p.Duration, d)
		p.Warmup, p.Interval = 0, 0
	}
}

// Summary describes a checked schedule for people and tools.
type Summary struct {
	Study      string          `json:"study"`
	Seats      []Seat          `json:"seats"`
	Techniques []TechniqueInfo `json:"techniques"`
	Rounds     []RoundInfo     `json:"rounds"`
	Questions  []Question      `json:"questions"`
	// Intake and Final are the questions put once before the first round
	// and once after the last; Consent the consent text ("" without)
	// and Agree its button's label.
	Intake  []Question `json:"intake,omitempty"`
	Final   []Question `json:"final,omitempty"`
	Consent string     `json:"consent,omitempty"`
	Agree   string     `json:"agree,omitempty"`
	// Counterbalance is the schedule's counterbalancing, absent without.
	Counterbalance *CounterbalanceInfo `json:"counterbalance,omitempty"`
	// Online is the schedule's [online] table, its defaults filled in;
	// Lobby the groups its lobby balances (both absent for a lab study).
	Online *Online       `json:"online,omitempty"`
	Lobby  []lobby.Group `json:"lobby_groups,omitempty"`
	// Exclusion is the schedule's exclusion rules, absent without.
	Exclusion *Exclusion `json:"exclusion,omitempty"`
	// TotalS is the study's length in seconds: every round's lead-in and
	// measured part and the intervals between rounds.
	TotalS float64 `json:"total_s"`
}

// TechniqueInfo is a technique by name, in the compact form.
type TechniqueInfo struct {
	Name    string `json:"name"`
	Setting string `json:"setting"`
	// Shown is the feedback every participant's page is mandated under
	// the technique (Technique.Shown: none unless the schedule sets
	// one), ShownText the same in words.
	Shown     string `json:"shown"`
	ShownText string `json:"shown_text"`
}

// RoundInfo is a round of the summary.
type RoundInfo struct {
	Name      string  `json:"name"`
	Map       string  `json:"map"`
	Mode      string  `json:"mode"`
	DurationS float64 `json:"duration_s"`
	WarmupS   float64 `json:"warmup_s"`
	Ready     bool    `json:"ready"`
	IntervalS float64 `json:"interval_s"`
	Technique string  `json:"technique"`
	// Shown is what every participant's page shows of the network in
	// the round: its technique's TechniqueInfo.Shown.
	Shown   string   `json:"shown"`
	Weapons []string `json:"weapons,omitempty"`
	Links   []Link   `json:"links"`
}

// Summary returns the schedule's summary.
func (s *Schedule) Summary() Summary {
	sum := Summary{Study: s.Name, Seats: s.seats, Questions: s.Questions, Counterbalance: s.counterbalanceInfo(),
		Intake: s.Intake, Final: s.Final, Consent: s.ConsentText()}
	if s.Consent != nil {
		sum.Agree = s.Consent.Agree
	}
	sum.Exclusion = s.Exclusion
	if s.Online != nil {
		sum.Online = s.Online
		if cfg, err := s.LobbyConfig(make([]byte, 16)); err == nil {
			sum.Lobby = cfg.Groups
		}
	}
	if sum.Questions == nil {
		sum.Questions = []Question{}
	}
	for _, t := range s.Techniques {
		sum.Techniques = append(sum.Techniques, TechniqueInfo{Name: t.Name, Setting: t.String(), Shown: t.Shown(), ShownText: t.ShownText()})
	}
	for i, p := range s.plans {
		sum.Rounds = append(sum.Rounds, RoundInfo{Name: p.Name, Map: p.Map, Mode: string(p.Mode),
			DurationS: p.Duration.Seconds(), WarmupS: p.Warmup.Seconds(), Ready: p.Ready, IntervalS: p.Interval.Seconds(),
			Technique: p.Technique.Name, Shown: p.Technique.Shown(), Weapons: p.Weapons, Links: p.Links})
		sum.TotalS += (p.LeadIn() + p.Duration).Seconds()
		if i < len(s.plans)-1 {
			sum.TotalS += p.Interval.Seconds()
		}
	}
	return sum
}
