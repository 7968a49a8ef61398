// Package reckoning provides dead reckoning and led reckoning: a receiver
// extrapolates a remote entity from its last update and blends smoothly
// into each new one, and the owner sends an update only when the
// receiver's extrapolation has drifted too far (threshold update
// sending). Led reckoning widens or narrows that tolerance with a trend
// map of where players usually go on a map. Reference: [led]
// (docs/references.md).
//
// # Formulas
//
// A Model holds the receiver's view of one entity. When an update with
// position P'0, velocity V'0 and acceleration A'0 arrives while the
// receiver shows the entity at P0 moving at V0, the receiver draws, T
// seconds later, with T̂ = min(T/B, 1) the elapsed fraction of the blend
// time B (projective velocity blending, after Murphy 2011, "Believable
// Dead Reckoning for Networked Games", Game Engine Gems 2, chapter 18):
//
//	Vb  = V0 + (V'0 - V0) T̂             blended velocity
//	Pt  = P0 + Vb T + ½ A'0 T²          projection from where it was
//	P't = P'0 + V'0 T + ½ A'0 T²        projection of the update
//	Q   = Pt + (P't - Pt) T̂             the drawn position
//
// First-order reckoning leaves the acceleration terms out. Dead
// reckoning uses one blend time; led reckoning uses B = K / η, so
// Q = Pt + (T/B)(P't - Pt) until T reaches B.
//
// A Sender decides when the owner updates: when the distance between the
// entity's true position and the dead-reckoned trajectory of its last
// update exceeds the threshold η, when the heartbeat (default 5 s) has
// passed since the last update, or when the caller forces one (a
// teleport). Dead reckoning (Dead) has one η. Led reckoning (Led) looks
// up the trend Vp of the trend map cell under the entity and sets
//
//	C = |Vb · Vp|                       (unit vectors; 0 if either is zero)
//	η = ηmin + C (ηmax - ηmin)
//
// so an entity going where players usually go may drift further before
// an update, and one turning off the usual way is corrected sooner.
//
// # Scale
//
// The led reckoning study ([led], section IX) states its thresholds
// ηmin, η, ηmax as 5, 20 and 35 game units of 1.905 cm (GameUnit),
// 9.5, 38.1 and 66.7 cm, and its mean errors (Table III) in
// centimetres, 24.8 and 27.2; lagkit takes the centimetres as printed,
// unscaled since the study's players and lagkit's are about as tall.
// The study gives K no value (its blend time was tuned by hand,
// section VII-A). DefaultK, which live threshold replication and
// `lagkit trend replay` use unless told otherwise, is calibrated
// (CalibrateK: a blend draws a correction no faster than players move)
// on one bot match that no experiment replays; before, it was set from
// the study's own update rate (17.8 a second), the figure the replay is
// compared with. The replay experiment calibrates K afresh per replicate
// on the paths that build its trend maps (package experiment).
//
// # Trend maps
//
// A TrendMap is a grid over a map's plan (default 100 x 100 cells) of
// the mean movement direction of one team's players (or every team's),
// built from recorded paths. Because C takes the absolute value of the
// dot product, a direction and its opposite count alike; each cell
// therefore holds the mean axis of movement (the circular mean of
// doubled angles), which keeps a corridor walked both ways as one clear
// trend instead of letting the two directions cancel out. Trend maps are
// small JSON files (see Parse); those built from bot play on the shipped
// maps come with the package (Shipped).
//
// # Path files
//
// Recorded play is a CSV file with the header row
//
//	time,player,team,x,y,z
//
// and one row per sample: the time in seconds, the player's number, its
// team, and the position of its feet in metres. Rows may come in any
// order; a player's samples are put in time order, and a gap longer than
// MaxGap or a jump faster than MaxSpeed (death, respawn, teleport) splits
// its path. `lagkit match --paths FILE` writes such a file at 20 Hz.
//
// # Replay
//
// Replay plays recorded paths frame by frame through a Sender and a
// receiver's Model with nothing between them, as the led reckoning study
// did, and measures the updates sent and the receiver's error. HoldOut
// keeps the replayed players out of the trend maps (TeamTrends) they are
// replayed against. A higher threshold always trades updates for error,
// so led reckoning is judged against dead reckoning's frontier over
// thresholds (FrontierEtas, UpdatesAtError): it is worth its trend map
// where it sends fewer updates than dead reckoning does at the same
// error.
package reckoning
