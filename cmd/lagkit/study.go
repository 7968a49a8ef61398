package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/lagkit/lagkit/experiment"
	"github.com/lagkit/lagkit/store"
	"github.com/lagkit/lagkit/study"
)

// studyCommands build the subcommands of lagkit study; a file adding one
// appends its constructor here from an init function.
var studyCommands = []func() *cobra.Command{newStudyCheckCmd, newStudyRunCmd, newStudyLobbyCmd, newStudyRehearseCmd, newStudyExportCmd}

// quickRound is how long --quick lets each round run.
const quickRound = 20 * time.Second

func newStudyCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "study",
		Short: "Check, run, export and report user studies from a schedule file (see presets/)",
	}
	for _, mk := range studyCommands {
		cmd.AddCommand(mk())
	}
	return cmd
}

// checkStudy loads the schedule at path, set for counterbalancing group
// (-1: the schedule's own), and checks it as study run would run it,
// with --simulate or live: study check and study run call it alike, so
// that check passes only what run plays.
func checkStudy(path string, simulate bool, group int) (*study.Schedule, error) {
	s, err := study.Load(path)
	if err != nil {
		return nil, err
	}
	if group >= 0 {
		if err := s.SetGroup(group); err != nil {
			return nil, usagef("--group: %v", err)
		}
	}
	if err := s.Validate(simulate); err != nil {
		how := "study run"
		if simulate {
			how += " --simulate"
		}
		return nil, fmt.Errorf("%s: %s cannot play it: %w", path, how, err)
	}
	return s, nil
}

func newStudyCheckCmd() *cobra.Command {
	var asJSON, simulate bool
	var group int
	cmd := &cobra.Command{
		Use:   "check FILE",
		Short: "Check a study schedule and summarise it",
		Long: `Check reads a study schedule (TOML), checks every round against its map,
mode and technique, and prints what the study will play: seats,
techniques, rounds with the latency injected on each seat, and the
questionnaire. It exits with status 1 and the file, line, column and key
of the first problem when the schedule does not do.

Check runs the checks study run runs before it stores anything: those
of a live run, or with --simulate those of a simulated one (which gives
every seat of a round one jitter and loss). A schedule a live run plays
but --simulate refuses passes with a note saying why.

It prints the order of techniques every seat plays, and for a schedule
with a [counterbalance] table the order of each group of its design;
the rounds are listed as --group plays them (default: the schedule's
counterbalance.group).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := checkStudy(args[0], simulate, group)
			if err != nil {
				return err
			}
			if !simulate {
				if _, err := checkStudy(args[0], true, group); err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "note: %s\n", userMessage(err))
				}
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(s.Summary())
			}
			s.Summary().WriteText(cmd.OutOrStdout())
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the summary as one JSON object")
	cmd.Flags().BoolVar(&simulate, "simulate", false, "check it for study run --simulate: bots in every seat on the simulation driver")
	addGroupFlag(cmd, &group)
	return cmd
}

// addGroupFlag adds --group, the counterbalancing group a run plays.
func addGroupFlag(cmd *cobra.Command, group *int) {
	cmd.Flags().IntVar(group, "group", -1, "the counterbalancing group to play: its row of the schedule's [counterbalance] design (default: the schedule's counterbalance.group)")
}

// studyRunFlags are lagkit study run's flags.
type studyRunFlags struct {
	simulate, quick, force, asJSON bool
	synthetic                      bool
	seed                           uint64
	out, dsn                       string
	lo                             liveStudyOptions
	group                          int
	join                           study.Join
	agones                         agonesOptions
	// probeListen and probeSecret serve the prescreen's probe while the
	// GameServer waits Ready (--agones-probe, --agones-secret-file).
	probeListen, probeSecret string
}

func newStudyRunCmd() *cobra.Command {
	var o studyRunFlags
	cmd := &cobra.Command{
		Use:   "run FILE",
		Short: "Run a study schedule (--simulate: bots in every seat)",
		Long: `Run plays a study schedule's rounds in order and writes a report from
what it recorded: per round and per technique, shots, hits, accuracy,
shots behind cover (SBC) per hit and appeals, overall and by the
players' round trip, and the questionnaire's answers.

Without --simulate the study is played live by people: it is served as
lagkit serve serves matches (the page, WebSocket and WebTransport on
--listen, native clients on --udp), and run prints the admin page's URL,
carrying a random admin token, and one join link per person's seat
(https://HOST:PORT/?code=CODE, codes from the schedule or generated).
The study waits for the admin's start (or --start); each round is a
match with the round's technique, the injected latency on each seat as
an emulated link, and bots in the bot seats. A participant who drops
and joins again with the same code gets the same seat and team, with
the statistics it had. Records go to --db as they happen; if the
process dies, running the same command again on the same database
resumes the study in the round it stopped in, each seat's statistics
restored from the stored kills and shots (--fresh starts anew).
A live run exits with status 0 when the study is over (every round
played, or ended by the admin), 3 when it was stopped by a signal
(SIGINT, SIGTERM) and can be resumed, 1 on an error and 2 on a usage
error. Its event log (the admin's actions, stops, crashes found at a
resume, resumes) is stored in the database with the records.

--simulate plays every seat with bots on the simulation driver, faster
than real time; the same --seed gives the same report. Round k of a
technique plays under the seed of replicate k of lagkit experiment run
with that --seed. Bots answer no questionnaires, unless
--synthetic-answers: then every seat answers every yes/no, Likert and
fairness question after each round from the model the schedule states
per question and technique ([[question.synthetic]]: technique, mean, sd;
and synthetic_participant_sd, how much participants differ), drawn
under --seed, so the whole analysis can be tried before anyone is
recruited. Such answers are labelled synthetic in the database (their
text is "synthetic") and throughout the report.

With --simulate the report goes to --out (default: a new folder under ./results/):
study.md, study.json, and the results.json, CSV tables and report.html
the experiments write. Every record (rounds, participants, sessions,
shots, kills, objectives, reports, answers and movement paths) is also
stored in the study database --db: an SQLite file (created if missing)
or a postgres:// URL; 'lagkit study export' reads it back.

Each run is one session of a study, and the sessions of a study share
its study id (one session per counterbalancing group, say). A session
joins the study of its schedule's name that ran the same schedule (the
group aside) when there is exactly one, or the one --study names (its
id, or its name); it starts a new study when none of its name and kind
(live, or simulated) exists, or with --new-study, and prints the new
study's id. A session whose schedule sets other things than its study's
is refused, saying what differs; so is a name several studies of the
schedule share, listing their ids. Participant codes are unique across
a study's sessions.

With --agones the run is the game server of one match of an online
study's lobby (lagkit study lobby --allocator agones), an Agones
GameServer talking to the SDK server beside it (localhost, port
$AGONES_SDK_HTTP_PORT or 9358): it checks the schedule, pings Health
every --agones-health, marks the GameServer Ready and waits to be
allocated. The allocation's lagkit.dev/ annotations say what it plays:
the study, counterbalancing group, seed, the people's seats' codes and
the seats left to bots (the flags the lobby gives a local session:
--group, --study, --codes, --absent, --seed, --quick, with --fresh and
--start, which are refused here). It then serves the session on
--listen, writing to --db (the lobby's database), and at its end sets
the annotation agones.dev/sdk-lagkit-end ("done", or what ended it) for
the lobby and asks Agones to shut the GameServer down. With
--agones-probe, while it waits Ready it serves the lobby's prescreen
probe there (the GameServer's port named probe, over WebTransport and
WebSocket with --cert's certificate): it measures each page's round
trip, seals the result with the key of --agones-secret-file (the
lobby's --secret-file) for the page to hand on to the lobby, and says
its certificate's SHA-256 in the annotation
agones.dev/sdk-lagkit-probe-cert; it stops the probe once allocated.`,
		Args: cobra.ExactArgs(1),
		RunE: o.run,
	}
	f := cmd.Flags()
	f.BoolVar(&o.simulate, "simulate", false, "play every seat with bots on the simulation driver")
	f.Uint64Var(&o.seed, "seed", 1, "random seed of the bots")
	f.BoolVar(&o.synthetic, "synthetic-answers", false, "with --simulate: answer the questionnaires from the schedule's models, labelled synthetic")
	f.BoolVar(&o.quick, "quick", false, fmt.Sprintf("a smoke test: every round cut to at most %v, without warm-ups and intervals", quickRound))
	f.StringVar(&o.out, "out", "", "output folder, new or empty (default: a new folder under ./results/)")
	f.BoolVar(&o.force, "force", false, "write into --out even if it is not empty")
	f.BoolVar(&o.asJSON, "json", false, "print study.json to stdout")
	f.StringVar(&o.dsn, "db", defaultDB, "study database: an SQLite file, or a postgres:// URL")
	f.StringVar(&o.join.Study, "study", "", "the study this session joins: its id, or its name (default: the one study of this schedule's name that ran it, if any)")
	f.BoolVar(&o.join.New, "new-study", false, "start a new study, even when one of this name and schedule exists (a live run then resumes no unfinished session)")
	addGroupFlag(cmd, &o.group)
	addLiveStudyFlags(cmd, &o.lo)
	f.BoolVar(&o.agones.on, "agones", false, "serve one match of an online study's lobby as an Agones GameServer: Ready, then the session its allocation's annotations assign, then Shutdown")
	f.DurationVar(&o.agones.health, "agones-health", 2*time.Second, "with --agones: how often to ping Agones' Health (within the Fleet's health periodSeconds)")
	f.DurationVar(&o.agones.wait, "agones-wait", 30*time.Second, "with --agones: how long each call retries while the SDK server cannot be reached")
	f.StringVar(&o.probeListen, "agones-probe", "", "with --agones: HOST:PORT of the prescreen's round-trip probe while the GameServer waits Ready (its port named probe; needs --agones-secret-file)")
	f.StringVar(&o.probeSecret, "agones-secret-file", "", "with --agones-probe: the lobby's --secret-file, whose key seals each round trip the probe measures")
	return cmd
}

// run checks the schedule and plays it live, or simulated.
func (o *studyRunFlags) run(cmd *cobra.Command, args []string) error {
	if err := o.agones.check(cmd.Flags().Changed, 1); err != nil {
		return usageError{err}
	}
	if o.agones.on {
		return o.runAgones(cmd, args[0])
	}
	for _, name := range []string{"agones-probe", "agones-secret-file"} {
		if cmd.Flags().Changed(name) {
			return usagef("--%s needs --agones", name)
		}
	}
	s, err := checkStudy(args[0], o.simulate, o.group)
	if err != nil {
		return err
	}
	if o.quick {
		s.Shorten(quickRound)
	}
	if !o.simulate {
		if o.synthetic {
			return usagef("--synthetic-answers: only a simulated study (--simulate) answers from a model; people answer a live one")
		}
		for _, name := range []string{"out", "force", "json"} {
			if cmd.Flags().Changed(name) {
				return usagef("--%s: a live study writes its records to --db; report on them with the study database", name)
			}
		}
		if err := positive(cmd.Flags(), "answer-wait", o.lo.answerWait, "more than 0, such as 2m"); err != nil {
			return err
		}
		if o.join.New && o.join.Study != "" {
			return usagef("--new-study starts a new study and --study joins one: give one of them")
		}
		return runLiveStudy(cmd.Context(), s, o.dsn, o.seed, o.join, o.lo, cmd.OutOrStdout(), cmd.ErrOrStderr())
	}
	return o.runSimulated(cmd, s)
}

// runSimulated plays every seat with bots on the simulation driver, and
// writes the report.
func (o *studyRunFlags) runSimulated(cmd *cobra.Command, s *study.Schedule) error {
	for _, name := range []string{"listen", "udp", "cert", "key", "start", "fresh", "answer-wait", "log-format", "codes", "absent", "consented"} {
		if cmd.Flags().Changed(name) {
			return usagef("--%s: only a live study (without --simulate) serves players", name)
		}
	}
	if o.join.New && o.join.Study != "" {
		return usagef("--new-study starts a new study and --study joins one: give one of them")
	}
	if o.out == "" {
		o.out = experiment.DefaultOut("study-" + s.Name)
	}
	_, statErr := os.Stat(o.out)
	if err := emptyOut(o.out, o.force); err != nil {
		return err
	}
	report := false
	defer func() {
		if !report && errors.Is(statErr, fs.ErrNotExist) {
			// A failed run leaves no folder it made; a folder
			// that is no longer empty stays.
			_ = os.Remove(o.out)
		}
	}()
	wall := time.Now()
	db, err := store.Open(cmd.Context(), o.dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	rep, err := study.RunSimulated(cmd.Context(), s, db, o.seed, o.synthetic, o.join, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	report = true
	plans := len(s.Plans())
	return writeStudyReport(cmd, rep, o.out, o.asJSON, fmt.Sprintf("study %s: %d rounds simulated in %.0f s, study id %d",
		s.Name, plans, time.Since(wall).Seconds(), rep.StudyID))
}

// emptyOut makes sure dir can take a report: created if missing, and
// empty unless force is set.
func emptyOut(dir string, force bool) error {
	switch err := experiment.Fresh(dir, force); {
	case errors.Is(err, experiment.ErrNotEmpty):
		return usagef("--out %s is not empty: give --force to write over it", dir)
	case err != nil:
		return fmt.Errorf("--out: %w", err)
	}
	return nil
}
