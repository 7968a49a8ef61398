package study

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// CodebookFile is the name of the codebook study report and study export
// write beside their CSV files.
const CodebookFile = "codebook.md"

// Column is one column of a CSV file in the codebook: its name, its unit
// ("" for a label or a flag) and what it means. A name with a part in
// angle brackets ("answer_<question>") stands for a family of columns.
type Column struct {
	Name, Unit, Meaning string
}

// CSVFile is one CSV file in the codebook: its name (a part in angle
// brackets stands for a family of files), what a row is, and its
// columns.
type CSVFile struct {
	Name    string
	Row     string
	Columns []Column
}

// Units.
const (
	unitCount = "count"
	unitShare = "share, 0 to 1"
	unitRatio = "ratio, 0 or more"
	unitM     = "m"
	unitMS    = "ms"
	unitS     = "s"
	unitWall  = "ISO 8601 time, UTC"
	unitSeat  = "seat number, from 0"
	unitRound = "round number, from 1"
	unitBool  = "true or false"
)

// figureCodebook describes the figure columns of study_rounds.csv and
// study_techniques.csv (figureColumns).
var figureCodebook = []Column{
	{"shots", unitCount, "shots fired by the row's players (a shotgun's pellets each count)"},
	{"hits", unitCount, "registered hits those shots made on a player"},
	{"hit_accuracy", unitShare, "hits / shots (0 with no shot)"},
	{"hits_received", unitCount, "registered hits on the row's players"},
	{"sbc", unitCount, "hits received that were behind cover on the victim's screen when the hit reached it, as the victim's client judged it (objective shots behind cover: the shots' objective_sbc; a hit whose judgment never arrived counts as not)"},
	{"sbc_per_hit", unitShare, "sbc / hits_received (0 with no hit received)"},
	{"appeals", unitCount, "hits received the victim was asked about (advanced lag compensation's appeals)"},
	{"confirmed", unitCount, "appeals whose hit the server confirmed"},
	{"denials_upheld", unitCount, "appeals whose denial the server upheld: the hit was undone"},
	{"denials_refuted", unitCount, "appeals whose denial the server refuted: the hit stood"},
	{"timeouts", unitCount, "appeals unanswered in time"},
	{"kills", unitCount, "kills by the row's players"},
	{"deaths", unitCount, "deaths of the row's players (the row 'all': every death)"},
	{"sbc_reports", unitCount, "\"I was shot behind cover\" reports by the row's players"},
	{"sbc_reports_per_hit", unitRatio, "sbc_reports / hits_received (0 with no hit received)"},
	{"rewound_hits", unitCount, "hits by the row's players judged on a rewound world (rewind above 0)"},
	{"rollback_mean_m", unitM, "mean distance the victims of rewound hits were moved back: between their rewound and current positions (0 with none)"},
	{"rollback_max_m", unitM, "the longest such distance"},
	{"verdict_shots", unitCount, "shots by the row's players whose client sent its own verdict (hitscan shots; a shotgun's pellets are one shot)"},
	{"client_hits", unitCount, "of those, the shots the shooter's client showed as hits: a pellet met an enemy as it drew the players at the shot's view time"},
	{"server_hits", unitCount, "of those, the shots the server registered (a pellet's damage applied)"},
	{"refused", unitCount, "shots the client showed as hits that the server did not register"},
	{"granted", unitCount, "shots the client showed as misses that the server registered"},
	{"verdict_agreement", unitShare, "shots on which client and server agree / verdict_shots (0 with none)"},
}

// groupCodebook describes the key columns of a row of study_rounds.csv
// or study_techniques.csv.
var groupCodebook = []Column{
	{"rtt_ms", unitMS, "the players' injected round trip (twice the one-way latency); empty for the round's or technique's own row: its subjects together (every person's seat in a study with people, the bots left out; every seat in a study of bots alone)"},
	{"players", "", "whose figures the row holds: people or bots (one round-trip group), or for the row with rtt_ms empty people (every person's seat, bots apart) or all (every seat of a study of bots alone)"},
	{"seats", unitCount, "seats in the row"},
}

// ReportCodebook describes every CSV file lagkit study report and study
// run write.
var ReportCodebook = []CSVFile{
	{"study_conditions.csv", "one technique, every round played under it pooled", []Column{
		{"technique", "", "the technique's name in the schedule"},
		{"hit_accuracy", unitShare, "registered hits per shot, the participants' shots pooled (every seat's in a study of bots alone)"},
		{"hit_accuracy_high_ping", unitShare, "the same, of the high-ping participants (their rounds at a round trip above the study's low-ping round trip: study.json low_ping_ms, alc's low_ping_ms, 50 ms by default)"},
		{"sbc_per_hit", unitShare, "hits received behind cover on the victim's screen, per hit received, the participants' pooled"},
		{"sbc_per_hit_low", unitShare, "the same, of the low-ping participants (their rounds at a round trip up to the study's low-ping round trip): the primary outcome"},
		{"sbc_reports_per_hit", unitRatio, "\"I was shot behind cover\" reports per hit received, the participants' pooled"},
		{"rollback_mean_m", unitM, "mean distance the victims of the participants' rewound hits were moved back"},
		{"<figure>_ci95_lo", "the figure's", fmt.Sprintf("lower bound of the figure's 95%% confidence interval: a percentile cluster bootstrap over the participants (2000 resamples, the study's seed; with no report at all, the exact Poisson interval); empty when the figure is over nothing or over fewer than %d participants", MinClusters)},
		{"<figure>_ci95_hi", "the figure's", "upper bound of that interval"},
	}},
	{"study_techniques.csv", "one technique, pooled over its rounds: every seat (players all), then each round-trip group of people, then of bots", append([]Column{
		{"technique", "", "the technique's name in the schedule"},
	}, append(groupCodebook, figureCodebook...)...)},
	{"study_rounds.csv", "one round: every seat (players all), then each round-trip group of people, then of bots", append([]Column{
		{"round", unitRound, "the round, in the schedule's order"},
		{"name", "", "the round's name in the schedule"},
		{"technique", "", "the technique the round was played under"},
	}, append(groupCodebook, figureCodebook...)...)},
	{"study_participant_rounds.csv", "one seat in one round (long format, for mixed models: a random intercept per seat or code)", []Column{
		{"round", unitRound, "the round, in the schedule's order"},
		{"round_name", "", "the round's name in the schedule"},
		{"technique", "", "the technique the round was played under"},
		{"seat", unitSeat, "the seat"},
		{"code", "", "the seat's participant code (empty for a bot's seat, or a code handed out live and not stored)"},
		{"bot", unitBool, "a bot played the seat in this round (every seat of a simulated study)"},
		{"team", "", "the seat's team in this round: 0 or 1 (ffa: 0)"},
		{"rtt_ms", unitMS, "the seat's injected round trip in this round (twice the one-way latency)"},
		{"ping", "", "low (rtt_ms up to the study's low-ping round trip, study.json low_ping_ms) or high"},
		{"shots", unitCount, "shots the seat fired"},
		{"hits", unitCount, "registered hits those shots made"},
		{"hit_accuracy", unitShare, "hits / shots; empty with no shot"},
		{"hits_received", unitCount, "registered hits on the seat"},
		{"sbc", unitCount, "hits received behind cover on the seat's screen"},
		{"sbc_per_hit", unitShare, "sbc / hits_received; empty with no hit received"},
		{"sbc_reports", unitCount, "\"I was shot behind cover\" reports the seat made"},
		{"sbc_reports_per_hit", unitRatio, "sbc_reports / hits_received; empty with no hit received"},
		{"appeals", unitCount, "hits on the seat it was asked about (alc)"},
		{"kills", unitCount, "the seat's kills"},
		{"deaths", unitCount, "the seat's deaths"},
		{"rewound_hits", unitCount, "the seat's hits judged on a rewound world"},
		{"rollback_mean_m", unitM, "mean distance the victims of those hits were moved back; empty with none"},
		{"answer_source", "", "whose the row's answers are: participant, synthetic (drawn by a simulated study from the schedule's model, not a person's), or empty with no answer"},
		{"study", "", "the session's id in the database, as study in the export's tables; the study's name in a report of one session"},
		{"study_id", "", studyIDMeaning + "; the same in every row of a pooled report"},
		{"session", "", "the session (one study run, one counterbalancing group) the row is from, from 1; a report of one run has session 1"},
		{"counterbalance_group", "", "the session's counterbalancing group (its row of the design), from 0"},
		{"period", "", "the period of the row's technique for this seat: 1 for the first technique it played, 2 for the second, ..."},
		{"session_round", unitRound, "the round as its session numbers it (round counts on over the sessions of a pooled report)"},
		{"session_seat", unitSeat, "the seat as its session numbers it (seat counts on over the sessions of a pooled report)"},
		{"intake_<question>", "the question's scale", "the participant's answer to the intake question of that id, asked once before the first round (a choice: its place from 0, see questions.csv), the same in each of its rows: a covariate; empty with no answer"},
		{"answer_<question>", "the question's scale", "the seat's answer after the round to the yes/no (1 yes, 0 no) or scale question (Likert 1 to 5 or 7, fairness -5 to 5, a scale's or a number's min to max) of that id (the mean if it answered twice); empty with no answer"},
	}},
	{"study_answers.csv", "one question under one technique, every round of it pooled", []Column{
		{"technique", "", "the technique's name"},
		{"question", "", "the question's id in the schedule"},
		{"kind", "", "yesno, likert (1 to 5) or fairness (-5 to 5)"},
		{"answers", unitCount, "answers given"},
		{"participants", unitCount, "seats that gave them"},
		{"median", "the question's scale", "median answer (Likert, fairness); empty for yes/no"},
		{"mean", "the question's scale", "mean answer (Likert, fairness); empty for yes/no"},
		{"yes_share", unitShare, "share of yes (yes/no); empty otherwise"},
	}},
	{"study_comparisons.csv", fmt.Sprintf("one Likert or fairness question compared between techniques a and b, paired by participant (Wilcoxon signed-rank test of b − a); a question with fewer than %d pairs is not tested (study.md says so)", MinPairs), []Column{
		{"question", "", "the question's id"},
		{"a", "", "the first technique"},
		{"b", "", "the second technique"},
		{"pairs", unitCount, "participants who answered under both (each its mean answer under each)"},
		{"nonzero", unitCount, "pairs whose difference is not 0, the ones ranked"},
		{"median_a", "the question's scale", "median of the participants' answers under a"},
		{"median_b", "the question's scale", "the same under b"},
		{"w_plus", "rank sum", "W+, the sum of the ranks of the positive differences (b higher)"},
		{"w_minus", "rank sum", "W−, that of the negative ones"},
		{"p", "probability", "two-sided p: exact up to 25 nonzero differences, else the normal approximation with tie and continuity corrections"},
		{"p_holm", "probability", "p Holm-adjusted over the statistics policy's secondary family (every secondary test of the report: high-ping accuracy and every question), as report.html and study.md give it"},
		{"holm_family", unitCount, "how many tests that family holds"},
	}},
	{"study_frames.csv", "one participant's page in one round: how it drew the round", []Column{
		{"round", unitRound, "the round, in the schedule's order"},
		{"technique", "", "the round's technique"},
		{"seat", unitSeat, "the participant's seat"},
		{"frames", unitCount, "frames the page drew through the measured part"},
		{"frame_mean_ms", unitMS, "mean time between successive frames"},
		{"frame_p95_ms", unitMS, "its 95th percentile"},
		{"frame_max_ms", unitMS, "the longest"},
		{"refresh_hz", "Hz", "the display's refresh rate the page measured (0: not reported)"},
		{"client_rtt_mean_ms", unitMS, "the page's own round-trip estimate through the round, mean"},
		{"below_floor", unitBool, "the mean frame time was above 1000/min_fps ms (the schedule's min_fps, default 30): the participant's figures in that round are not the technique's alone"},
	}},
	{"study_flow.csv", "one stage of an online study's participant flow, or one reason at it (participants counted once per recruitment platform id, from the lobby's events)", []Column{
		{"stage", "", "arrived; consented (a study with a consent text); refused at the prescreen; dropped at the prescreen; passed the prescreen; dropped waiting for a match; matched; dropped from a match; completed; still in the lobby when it stopped; excluded (by the schedule's exclusion rules); analysed"},
		{"reason", "", "empty on a stage's total; else the lobby's reason (or, for excluded, the rule) the row counts"},
		{"participants", unitCount, "participants at the stage, or with the reason"},
	}},
	{"study_exclusions.csv", "one participant left out of the analyses by one of the schedule's exclusion rules (a participant who broke several has a row for each)", []Column{
		{"seat", unitSeat, "the participant's seat"},
		{"code", "", "the participant's code"},
		{"rule", "", "failed_checks, min_rounds, min_fps or max_rtt_error_ms, as the schedule's [exclusion] table names it"},
		{"value", "the rule's", "the participant's value: attention checks failed, share of the session's rounds played, median frames a second, or the largest gap between measured and target round trip in ms"},
		{"limit", "the rule's", "the rule's limit"},
		{"detail", "", "the value as a person reads it"},
	}},
	{"study_texts.csv", "one free-text answer", []Column{
		{"technique", "", "the round's technique"},
		{"round", "", "the round's name"},
		{"seat", unitSeat, "the seat that answered"},
		{"question", "", "the question's id"},
		{"text", "", "the answer as written"},
	}},
	{"study_seat_orders.csv", "one seat's order of techniques (people's seats when people played; every seat in a study of bots)", []Column{
		{"seat", unitSeat, "the seat"},
		{"person", unitBool, "a person held the seat"},
		{"counterbalance_group", "", "its counterbalancing group, from 0"},
		{"design", "", "the counterbalancing design: latin, random, or empty"},
		{"technique_order", "", "the techniques the seat played, by round, separated by commas"},
	}},
	{"study_network.csv", "one seat in one round (people's seats when people played): the network injected beside that measured, the manipulation check", []Column{
		{"round", unitRound, "the round"},
		{"technique", "", "the round's technique"},
		{"seat", unitSeat, "the seat"},
		{"target_rtt_ms", unitMS, "the round trip the seat was held at, whatever its own network added (0: none)"},
		{"injected_rtt_ms", unitMS, "the round trip injected: twice the one-way latency, or under a target the mean the links applied up and down"},
		{"jitter_ms", unitMS, "jitter injected, each direction"},
		{"loss", unitShare, "loss injected, each direction"},
		{"rtt_mean_ms", unitMS, "mean of the server's smoothed round-trip estimate of the seat, sampled through the measured part"},
		{"rtt_p50_ms", unitMS, "its median"},
		{"rtt_p95_ms", unitMS, "its 95th percentile"},
		{"rtt_jitter_ms", unitMS, "mean absolute difference of successive samples (damped by the smoothing: a lower bound)"},
		{"rtt_samples", unitCount, "samples"},
		{"client_rtt_mean_ms", unitMS, "mean of the client's own round-trip estimate (0 when it reported none)"},
		{"client_samples", unitCount, "samples of it"},
		{"loss_up", unitShare, "share of the seat's datagrams to the server the emulated link dropped"},
		{"loss_down", unitShare, "share of those to the seat it dropped"},
	}},
	{"study_instruments.csv", "one intake or final question (a choice or yes/no question: one of its choices), over the participants who answered", []Column{
		{"stage", "", "intake (asked once before the first round) or final (once after the last round)"},
		{"question", "", "the question's id"},
		{"kind", "", "yesno, likert, likert7, fairness, scale, number, choice or text"},
		{"answers", unitCount, "participants who answered"},
		{"choice", "", "the choice (yes/no: no or yes); empty for other kinds"},
		{"count", unitCount, "participants who chose it"},
		{"share", unitShare, "count / answers"},
		{"mean", "the question's scale", "mean answer of a scale or number question"},
		{"median", "the question's scale", "its median"},
		{"ci95_lo", "the share's or the question's scale", "lower bound of the share's 95% Wilson score interval, or of the median's distribution-free 95% interval (empty when too few answered)"},
		{"ci95_hi", "the share's or the question's scale", "its upper bound"},
	}},
	{"study_clients.csv", "one participant's browser, as it last reported itself", []Column{
		{"seat", unitSeat, "the participant's seat"},
		{"consented", unitBool, "the participant agreed to the consent text"},
		{"consented_at", unitWall, "when; empty without"},
		{"refresh_hz", "Hz", "the display's refresh rate the page measured from its animation frames (0: not measured)"},
		{"mouse_sensitivity", "rad per px ×1000", "the page's mouse sensitivity"},
		{"screen_w", "CSS px", "the screen's width"},
		{"screen_h", "CSS px", "the screen's height"},
		{"reports", unitCount, "reports the browser made (at consent and on joining each round)"},
		{"user_agent", "", "the browser's user agent"},
	}},
	{"study_rollback.csv", "one 5 cm band of the rollback distance of the hits people received, under one technique (or all techniques pooled)", []Column{
		{"technique", "", "the technique, or \"all techniques\""},
		{"from_m", unitM, "the band's start; it reaches 5 cm further, the last band (from 0.5 m) has no end"},
		{"mid_m", unitM, "the band's middle (the last: 2.5 cm past its start), the plot's x"},
		{"hits", unitCount, "registered hits on people whose rollback fell in the band"},
		{"sbc", unitCount, "those behind cover on the victim's screen"},
		{"sbc_per_hit", unitShare, "sbc / hits; empty with no hit"},
		{"reports", unitCount, "SBC reports about a hit in the band (the most recent hit on the reporter)"},
		{"reports_per_hit", unitRatio, "reports / hits; empty with no hit"},
		{"sbc_per_hit_ci95_lo", unitShare, "lower bound of sbc_per_hit's 95% Wilson score interval"},
		{"sbc_per_hit_ci95_hi", unitShare, "its upper bound"},
		{"reports_per_hit_ci95_lo", unitRatio, "lower bound of reports_per_hit's exact Poisson (Garwood) 95% interval"},
		{"reports_per_hit_ci95_hi", unitRatio, "its upper bound"},
	}},
}

// sessionIDMeaning and studyIDMeaning describe the two ids every table
// of an export starts with.
const (
	sessionIDMeaning = "the session's id in the database: one study run (one counterbalancing group), a row of studies.csv; the paths-study<id> files are named by it"
	studyIDMeaning   = "the study's id: shared by every session of the study (study run --study ID joins one), different for two studies of one name"
)

// exportNetwork and exportEvents describe the manipulation checks and the
// event log lagkit study export writes.
var exportNetwork = CSVFile{"network.csv", "one seat in one round: the network conditions injected beside those measured", []Column{
	{"study", "", sessionIDMeaning},
	{"study_id", "", studyIDMeaning},
	{"seat", unitSeat, "the seat"},
	{"round", unitRound, "the round"},
	{"latency_ms", unitMS, "one-way latency the schedule injects, each direction"},
	{"jitter_ms", unitMS, "jitter the schedule injects, each direction"},
	{"loss", unitShare, "loss the schedule injects, each direction"},
	{"rtt_mean_ms", unitMS, "mean of the server's round-trip estimate, sampled at 20 Hz"},
	{"rtt_p50_ms", unitMS, "its median"},
	{"rtt_p95_ms", unitMS, "its 95th percentile"},
	{"rtt_jitter_ms", unitMS, "mean change between successive samples (a lower bound of the jitter: the estimate is smoothed)"},
	{"rtt_samples", unitCount, "server samples"},
	{"client_rtt_mean_ms", unitMS, "mean of the client's own round-trip estimate; 0 with no samples"},
	{"client_rtt_jitter_ms", unitMS, "mean change between its successive samples"},
	{"client_samples", unitCount, "client samples (0 where the client reports none)"},
	{"loss_up", unitShare, "share of the seat's datagrams the emulated uplink lost"},
	{"loss_down", unitShare, "share the emulated downlink lost"},
	{"delay_up_ms", unitMS, "mean one-way delay the emulated uplink applied"},
	{"delay_down_ms", unitMS, "mean one-way delay the emulated downlink applied"},
	{"target_rtt_ms", unitMS, "the round trip the seat was held at, whatever its own network added (0: a fixed latency_ms instead); the delays say what was injected"},
}}

var exportEvents = CSVFile{"events.csv", "one entry of a live study's event log", []Column{
	{"study", "", sessionIDMeaning},
	{"study_id", "", studyIDMeaning},
	{"round", unitRound, "the round being played, or the next one"},
	{"kind", "", "start, pause, resume, skip, extend, end, stop, crash, resumed or over"},
	{"detail", "", "what more the entry says (how much an extension added, where a resume picked up)"},
	{"at", unitWall, "when"},
}}

// ExportCodebook describes every CSV file lagkit study export writes.
// Each table's first column is the study's id.
var ExportCodebook = []CSVFile{
	{"studies.csv", "one study", []Column{
		{"study", "", sessionIDMeaning},
		{"study_id", "", studyIDMeaning},
		{"name", "", "the study's name (the schedule's name)"},
		{"schedule", "", "the text of the schedule file the study ran"},
		{"seed", "", "the seed its bots (and synthetic answers) were drawn under, an unsigned 64-bit integer"},
		{"simulated", unitBool, "bots played every seat on the simulation driver"},
		{"started", unitWall, "when the study started"},
		{"schedule_key", "", "SHA-256 of what the schedule sets, which a resumed study must match"},
		{"design", "", "the counterbalancing design: latin, random, or empty for none"},
		{"counterbalance_group", "", "the group (row of the design) this study played, from 0"},
		{"lagkit_version", "", "the lagkit module version that ran the study"},
		{"vcs_revision", "", "the VCS revision it was built from; empty when the build carries none (see build_note)"},
		{"vcs_modified", unitBool, "its tree had uncommitted changes"},
		{"go_version", "", "the Go version that built it"},
		{"build_note", "", "where vcs_revision came from when Go did not stamp it into the build (link time, or git at run time), or why it is empty"},
		{"tick_rate", "Hz", "the server's tick rate"},
		{"consent", "", "the consent text participants agreed to before playing; empty without a consent screen"},
		{"shortened_s", unitS, "study run --quick cut every round's measured part to at most this long and dropped warm-ups and intervals; 0: the schedule's own lengths"},
	}},
	{"techniques.csv", "one technique of the schedule", []Column{
		{"study", "", sessionIDMeaning},
		{"study_id", "", studyIDMeaning},
		{"technique", "", "the technique's name in the schedule"},
		{"setting", "", "its settings in a compact key=value form"},
	}},
	{"seat_orders.csv", "one seat's order of techniques", []Column{
		{"study", "", sessionIDMeaning},
		{"study_id", "", studyIDMeaning},
		{"seat", unitSeat, "the seat"},
		{"counterbalance_group", "", "its counterbalancing group, from 0"},
		{"design", "", "the counterbalancing design: latin, random, or empty"},
		{"technique_order", "", "the techniques the seat played, by round, separated by commas"},
	}},
	{"rounds.csv", "one round", []Column{
		{"study", "", sessionIDMeaning},
		{"study_id", "", studyIDMeaning},
		{"round", unitRound, "the round, in the schedule's order"},
		{"name", "", "the round's name"},
		{"map", "", "the map"},
		{"mode", "", "the mode: ffa, tdm, ctf or dom"},
		{"technique", "", "the technique's name in the schedule"},
		{"setting", "", "the technique's settings in a compact key=value form"},
		{"duration_s", unitS, "the measured part's scheduled length"},
		{"started", unitWall, "when the measured part began"},
		{"ended", unitWall, "when the round ended"},
		{"planned_s", unitS, "the measured part's length as the schedule planned it, cut to studies.shortened_s in a --quick run"},
		{"paused_s", unitS, "how long the administrator paused it"},
		{"seed", "", "the seed the round's bots played under"},
		{"weapons", "", "the loadout by name, separated by commas, the first drawn at spawn"},
		{"cut", unitBool, "its game server was lost before the round's end (killed or crashed): its records stop there, and the report leaves the round out"},
	}},
	{"participants.csv", "one seat in one round", []Column{
		{"study", "", sessionIDMeaning},
		{"study_id", "", studyIDMeaning},
		{"seat", unitSeat, "the seat"},
		{"round", unitRound, "the round"},
		{"code", "", "the seat's participant code (empty for a bot's seat without one)"},
		{"team", "", "the seat's team in the round"},
		{"bot", unitBool, "a bot played the seat"},
		{"latency_ms", unitMS, "the one-way latency injected on the seat's link (the round trip is twice it)"},
		{"jitter_ms", unitMS, "the jitter injected on the seat's link, each direction"},
		{"loss", unitShare, "the loss injected on the seat's link, each direction"},
		{"target_rtt_ms", unitMS, "the round trip the seat's link held, injecting the difference from its own (0: a fixed latency_ms instead)"},
		{"stand_in", unitBool, "a bot played the seat in its participant's place, who had left mid-match and not come back within the rejoin grace"},
		{"stand_in_s", unitS, "with stand_in, the match time from which the bot played the seat (0: the whole round, bot then set)"},
		{"person", unitBool, "the schedule gives the seat to a person: a participant's seat, which the report analyses as one, whoever played it (bot says who: a bot standing in, or in a simulated study the bot playing the live study's participant)"},
	}},
	{"sessions.csv", "one connect or disconnect", []Column{
		{"study", "", sessionIDMeaning},
		{"study_id", "", studyIDMeaning},
		{"round", unitRound, "the round"},
		{"seat", unitSeat, "the seat"},
		{"kind", "", "connect or disconnect"},
		{"reason", "", "why a session ended (round over, closed, timeout, ...)"},
		{"transport", "", "how it was carried: udp, wt (WebTransport), websocket, pipe (a live bot), or sim (simulated)"},
		{"at", unitWall, "when"},
	}},
	{"shots.csv", "one judged shot (each pellet of a shotgun)", []Column{
		{"study", "", sessionIDMeaning},
		{"study_id", "", studyIDMeaning},
		{"round", unitRound, "the round"},
		{"time_s", unitS, "match time the shot was resolved, from the measured part's start"},
		{"shooter", unitSeat, "the shooter's seat"},
		{"shot_tick", "server tick", "the tick the shot was fired at"},
		{"victim", unitSeat, "the seat hit; -1 for a miss"},
		{"weapon", "", "the weapon's number in the loadout's weapon table"},
		{"part", "", "the body part hit (head, torso, ...); empty for a miss"},
		{"policy", "", "the lag compensation policy that judged it"},
		{"hit", unitBool, "the lag compensation policy's test found a player on the shot's line (on the rewound world where it rewinds): the shot hit as the server judged it"},
		{"registered", unitBool, "the hit's damage was applied: false for a hit the policy withheld (under alc, a hit the low-ping victim was asked about and denied: appeal denied_upheld); the report's hits are the registered ones"},
		{"damage", "health points", "damage applied"},
		{"rewind_ms", unitMS, "how far back the world was rewound to judge it"},
		{"rollback_m", unitM, "distance between the victim's rewound and current positions"},
		{"objective_sbc", unitBool, "the hit was behind cover on the victim's screen when it reached it: the victim's client's own SBC detection, on the pose it predicted when the hit arrived, against the shooter's eye, sent to the server naming the shot it belongs to (shooter, shot tick, part), live and simulated alike; false for a miss, for a hit its victim was not told of (a withheld hit's damage: alc's discarded), and for one whose judgment never arrived (sbc_known false)"},
		{"appeal", "", "the appeal's outcome (confirmed, denied_upheld, denied_refuted, timeout); empty when the victim was not asked"},
		{"kill", unitBool, "the shot killed"},
		{"eye_x", unitM, "where the shot left from as the shooter's client sent it: its eye as its commands put it (at the fire press when there was one), x; 0 for a projectile weapon's shot"},
		{"eye_y", unitM, "y"},
		{"eye_z", unitM, "z (up)"},
		{"aim_yaw_deg", "degrees", "the aim the client sent (before recoil and spread): yaw, from +x towards +y"},
		{"aim_pitch_deg", "degrees", "pitch, up positive"},
		{"view_time_s", unitS, "the time the client claimed to be showing when it fired, on time_s's clock (time_s less view_time_s: how far behind the server its view was)"},
		{"client_verdict", "", "the shooter's client's own verdict: hit when any pellet of the shot met an enemy's hitboxes as that client drew the players at view_time_s, miss when none did; empty when unknown (a projectile weapon's shot, or a shot whose command carried none). A shotgun's pellets share their shot's verdict; hit is the server's"},
		{"sbc_known", unitBool, "the victim's client's judgment of the hit (objective_sbc) arrived: false for a miss, a hit its victim was not told of, and a hit whose judgment was lost (the victim left, every packet carrying it was lost, or it had not arrived 2 s after the hit was told); false in shots stored before lagkit recorded it, whose objective_sbc is the victim's client's in a simulated study and server_sbc's test in a live one"},
		{"server_sbc", unitBool, "the server's own approximation of objective_sbc, for a registered hit: its victim, at the server's present when the hit was settled, stood behind cover from the shooter's eye (the server's state of the victim, not the pose the victim's client drew); false for a hit not registered, and in shots stored before lagkit recorded it"},
	}},
	{"kills.csv", "one kill", []Column{
		{"study", "", sessionIDMeaning},
		{"study_id", "", studyIDMeaning},
		{"round", unitRound, "the round"},
		{"time_s", unitS, "match time, from the measured part's start"},
		{"killer", unitSeat, "the killer's seat"},
		{"victim", unitSeat, "the victim's seat"},
		{"weapon", "", "the weapon's number"},
	}},
	{"duels.csv", "one duel: two seats' encounter, from the first instant either's client drew the other (simulated rounds; a live study's clients do not report what they draw)", []Column{
		{"study", "", sessionIDMeaning},
		{"study_id", "", studyIDMeaning},
		{"round", unitRound, "the round"},
		{"time_s", unitS, "match time of the duel's first sighting, from the measured part's start"},
		{"seat_a", unitSeat, "one seat (the lower server id)"},
		{"seat_b", unitSeat, "the other seat"},
		{"sight_a_ms", unitMS, "when seat_a's client first drew seat_b in its view with a clear line of sight, after time_s; -1: never"},
		{"sight_b_ms", unitMS, "the same for seat_b"},
		{"shot_a_ms", unitMS, "seat_a's client's first shot at seat_b, after time_s; -1: none"},
		{"shot_b_ms", unitMS, "the same for seat_b"},
		{"first_hit", unitSeat, "the seat whose shot the server registered on the other first; -1: neither hit"},
		{"killer", unitSeat, "the seat that killed the other in the duel; -1: nobody died"},
		{"both_saw", unitBool, "both clients drew the other"},
		{"first_seer", unitSeat, "the seat whose client drew the other first; -1 unless both_saw"},
		{"advantage_ms", unitMS, "first_seer's advantage: how much earlier its client drew the other; 0 unless both_saw"},
		{"expected_ms", unitMS, "the advantage Riot's account of Valorant's netcode predicts with first_seer as the peeker: a client frame, its one-way latency, a server frame, the other's one-way latency and interpolation delay; 0 unless both_saw"},
	}},
	{"objectives.csv", "one mode event: a flag taken, dropped, returned or captured, a point captured or lost", []Column{
		{"study", "", sessionIDMeaning},
		{"study_id", "", studyIDMeaning},
		{"round", unitRound, "the round"},
		{"time_s", unitS, "match time, from the measured part's start"},
		{"seat", unitSeat, "the seat that did it"},
		{"team", "", "its team"},
		{"kind", "", "the event (flag_taken, flag_captured, point_captured, ...)"},
	}},
	{"sbc_reports.csv", "one \"I was shot behind cover\" report, with the most recent hit on the reporter", []Column{
		{"study", "", sessionIDMeaning},
		{"study_id", "", studyIDMeaning},
		{"round", unitRound, "the round"},
		{"time_s", unitS, "match time of the report, from the measured part's start"},
		{"reporter", unitSeat, "the seat that reported"},
		{"shooter", unitSeat, "the shooter of the most recent hit on the reporter; -1 with none"},
		{"shot_tick", "server tick", "that hit's tick"},
		{"rewind_ms", unitMS, "that hit's rewind"},
		{"rollback_m", unitM, "that hit's rollback distance"},
		{"objective_sbc", unitBool, "that hit was behind cover on the reporter's screen"},
		{"appeal", "", "that hit's appeal outcome; empty when not asked"},
	}},
	{"answers.csv", "one answer to one question", []Column{
		{"study", "", sessionIDMeaning},
		{"study_id", "", studyIDMeaning},
		{"round", unitRound, "the round the questionnaire followed; 0 for an intake answer, given before the first round"},
		{"seat", unitSeat, "the seat that answered"},
		{"question", "", "the question's id in the schedule (see questions.csv)"},
		{"kind", "", "yesno, likert, likert7, fairness, scale, number, choice or text"},
		{"value", "the question's scale", "yes/no: 1 yes, 0 no; Likert 1 to 5 or 7; fairness -5 to 5; scale and number: min to max; choice: the choice's place from 0; empty for free text"},
		{"text", "", "a free-text answer, or the choice chosen; \"synthetic\" for an answer a simulated study drew from the schedule's model (its seat is a bot's), not a person's"},
		{"at", unitWall, "when it was given"},
		{"stage", "", "round (the questionnaire after each round), intake (once before the first round) or final (once after the last round)"},
	}},
	{"questions.csv", "one question the study put", []Column{
		{"study", "", sessionIDMeaning},
		{"study_id", "", studyIDMeaning},
		{"question", "", "the question's id"},
		{"stage", "", "round, intake or final, as in answers.csv"},
		{"position", "", "its place among its stage's questions, from 0"},
		{"kind", "", "yesno, likert, likert7, fairness, scale, number, choice or text"},
		{"text", "", "the question as participants read it"},
		{"min_value", "the question's scale", "the least answer (a choice: 0; text: 0)"},
		{"max_value", "the question's scale", "the greatest answer (a choice: the number of choices less one; text: 0)"},
		{"choices", "", "a choice question's choices in order, one a line"},
		{"low_anchor", "", "the label of the scale's low end; empty without"},
		{"high_anchor", "", "the label of its high end"},
	}},
	{"clients.csv", "one report of a participant's browser: at consent (round 0) or on joining a round", []Column{
		{"study", "", sessionIDMeaning},
		{"study_id", "", studyIDMeaning},
		{"seat", unitSeat, "the participant's seat"},
		{"round", unitRound, "the round joined; 0 for the report made at consent, before the first round"},
		{"consented", unitBool, "the report came with the participant's agreement to the consent text"},
		{"at", unitWall, "when"},
		{"refresh_hz", "Hz", "the display's refresh rate the page measured from its animation frames (0: not measured)"},
		{"mouse_sensitivity", "rad per px ×1000", "the page's mouse sensitivity"},
		{"user_agent", "", "the browser's user agent"},
		{"screen_w", "CSS px", "the screen's width"},
		{"screen_h", "CSS px", "the screen's height"},
		{"pixel_ratio", "", "device pixels per CSS pixel"},
	}},
	{"frames.csv", "how one participant's page drew one round's measured part, as the page measured it", []Column{
		{"study", "", sessionIDMeaning},
		{"study_id", "", studyIDMeaning},
		{"seat", unitSeat, "the participant's seat"},
		{"round", unitRound, "the round"},
		{"frames", unitCount, "frames drawn while the round was played (pauses left out)"},
		{"mean_ms", unitMS, "mean time between successive frames"},
		{"p50_ms", unitMS, "its median"},
		{"p95_ms", unitMS, "its 95th percentile"},
		{"p99_ms", unitMS, "its 99th percentile"},
		{"max_ms", unitMS, "the longest"},
		{"at", unitWall, "when the page reported them"},
		{"rtt_mean_ms", unitMS, "mean of the client's own round-trip estimate, sampled every 50 ms of frames while the round was played"},
		{"rtt_jitter_ms", unitMS, "mean absolute difference between successive samples of that estimate"},
		{"rtt_samples", unitCount, "samples taken of it (0: none reported)"},
	}},
	{"paths.csv", "one living player's position at one instant (20 Hz)", []Column{
		{"study", "", sessionIDMeaning},
		{"study_id", "", studyIDMeaning},
		{"round", unitRound, "the round"},
		{"time_s", unitS, "match time, from the measured part's start"},
		{"seat", unitSeat, "the seat"},
		{"team", "", "its team"},
		{"x", unitM, "position of the feet, x"},
		{"y", unitM, "y"},
		{"z", unitM, "z (up)"},
		{"yaw_deg", "degrees", "where the player looked, as its last command set it: yaw, from +x towards +y ; in a simulated study the server's state at the sample, which its bot's commands set the same way"},
		{"pitch_deg", "degrees", "pitch, up positive"},
	}},
	{"paths-study<id>-round<n>.csv", "one round's movement paths in the format lagkit trend reads: one position of a living player", []Column{
		{"time", unitS, "match time, from the measured part's start"},
		{"player", unitSeat, "the seat"},
		{"team", "", "its team"},
		{"x", unitM, "position of the feet, x"},
		{"y", unitM, "y"},
		{"z", unitM, "z (up)"},
	}},
	exportNetwork,
	exportEvents,
}

// pattern turns a codebook name with parts in angle brackets into a
// regular expression.
func pattern(name string) *regexp.Regexp {
	parts := regexp.MustCompile(`<[^>]+>`).Split(name, -1)
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".+") + "$")
}

// Lookup returns the codebook's entry of file among files, by exact name
// or pattern.
func Lookup(files []CSVFile, file string) (CSVFile, bool) {
	for _, f := range files {
		if pattern(f.Name).MatchString(file) {
			return f, true
		}
	}
	return CSVFile{}, false
}

// Describes reports whether f's codebook entry names column.
func (f CSVFile) Describes(column string) bool {
	for _, c := range f.Columns {
		if pattern(c.Name).MatchString(column) {
			return true
		}
	}
	return false
}

// WriteCodebook writes codebook.md into dir: what each of the CSV files
// named (by exact name or a codebook pattern) holds, a row and every
// column with its unit and meaning. Files the codebook does not know are
// an error, so that no CSV goes out undescribed.
func WriteCodebook(dir, title string, book []CSVFile, files []string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Codebook: %s\n\nEvery CSV file beside this one, a row of it and each of its columns: "+
		"its unit (blank for a name, a label or a code) and what it means. Numbers are plain decimals; an empty cell is a missing value "+
		"(a ratio over nothing, an answer not given). Rounds count from 1 and seats from 0 in every file.\n", title)
	done := map[string]bool{}
	for _, name := range files {
		f, ok := Lookup(book, name)
		if !ok {
			return fmt.Errorf("study: codebook: no entry for %s", name)
		}
		if done[f.Name] {
			continue
		}
		done[f.Name] = true
		fmt.Fprintf(&b, "\n## %s\n\nA row: %s.\n\n| column | unit | meaning |\n|---|---|---|\n", f.Name, f.Row)
		for _, c := range f.Columns {
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", c.Name, c.Unit, cellText(c.Meaning))
		}
	}
	if err := os.WriteFile(filepath.Join(dir, CodebookFile), []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("study: %w", err)
	}
	return nil
}
