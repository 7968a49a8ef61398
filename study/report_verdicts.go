package study

import (
	"fmt"
	"strings"

	"github.com/lagkit/lagkit/record"
)

// Verdicts sets the shooters' clients' own verdicts on their shots
// beside the server's, shot by shot (a shotgun's pellets are one shot: a
// hit for the client when any pellet met an enemy as it drew them, for
// the server when any pellet registered). Only shots whose client sent
// a verdict count: a projectile weapon's shots and those of clients that
// send none are left out.
type Verdicts struct {
	// Shots counts the shots with a client verdict; ClientHits those the
	// client showed as hits, ServerHits those the server registered.
	Shots      int `json:"verdict_shots"`
	ClientHits int `json:"client_hits"`
	ServerHits int `json:"server_hits"`
	// Refused counts the shots the client showed as hits that the server
	// did not register; Granted those the client showed as misses that
	// it did.
	Refused int `json:"refused"`
	Granted int `json:"granted"`
	// Agreement is the share of Shots on which both agree; RefusedShare
	// Refused per client hit, GrantedShare Granted per server hit.
	Agreement    float64 `json:"verdict_agreement"`
	RefusedShare float64 `json:"refused_share"`
	GrantedShare float64 `json:"granted_share"`
}

// add counts one shot: the client's verdict and whether the server
// registered it.
func (v *Verdicts) add(clientHit, serverHit bool) {
	v.Shots++
	switch {
	case clientHit && serverHit:
		v.ClientHits++
		v.ServerHits++
	case clientHit:
		v.ClientHits++
		v.Refused++
	case serverHit:
		v.ServerHits++
		v.Granted++
	}
	v.done()
}

// merge adds o's shots to v's.
func (v *Verdicts) merge(o *Verdicts) {
	v.Shots += o.Shots
	v.ClientHits += o.ClientHits
	v.ServerHits += o.ServerHits
	v.Refused += o.Refused
	v.Granted += o.Granted
	v.done()
}

func (v *Verdicts) done() {
	v.Agreement = ratio(v.Shots-v.Refused-v.Granted, v.Shots)
	v.RefusedShare = ratio(v.Refused, v.ClientHits)
	v.GrantedShare = ratio(v.Granted, v.ServerHits)
}

// verdictKey names one shot of a round.
type verdictKey struct {
	shooter int
	tick    uint32
}

// verdictShot is one shot's verdicts, its pellets pooled.
type verdictShot struct {
	clientHit, serverHit bool
}

// verdictTally gathers a round's shots with a client verdict, pellet by
// pellet, and counts each shot once when the round is reported.
type verdictTally struct {
	shots   map[verdictKey]*verdictShot
	order   []verdictKey
	counted bool
}

// shot notes one pellet's record.
func (vt *verdictTally) shot(s record.Shot) {
	if s.ClientVerdict == "" {
		return
	}
	if vt.shots == nil {
		vt.shots = map[verdictKey]*verdictShot{}
	}
	k := verdictKey{s.Shooter, s.ShotTick}
	sh := vt.shots[k]
	if sh == nil {
		sh = &verdictShot{}
		vt.shots[k] = sh
		vt.order = append(vt.order, k)
	}
	sh.clientHit = s.ClientVerdict == record.VerdictHit
	sh.serverHit = sh.serverHit || s.Registered && s.Victim >= 0
}

// countVerdicts adds each of the round's shots with a client verdict to
// the round's tallies, overall and the shooter's group, once.
func (rt *roundTally) countVerdicts() {
	vt := &rt.verdicts
	if vt.counted {
		return
	}
	vt.counted = true
	for _, k := range vt.order {
		sh := vt.shots[k]
		rt.all.Verdicts.add(sh.clientHit, sh.serverHit)
		if g := rt.group(k.shooter); g != nil {
			g.Verdicts.add(sh.clientHit, sh.serverHit)
		}
	}
}

// verdictColumns are the columns of the verdict figures in every figures
// table, after figureColumns' others.
var verdictColumns = []string{"verdict_shots", "client_hits", "server_hits", "refused", "granted", "verdict_agreement"}

func (v *Verdicts) values() []float64 {
	return []float64{float64(v.Shots), float64(v.ClientHits), float64(v.ServerHits), float64(v.Refused), float64(v.Granted), v.Agreement}
}

// markdownVerdicts writes a technique's table of client and server
// verdicts: its subjects' row, then each round-trip group's.
func (r *Report) markdownVerdicts(b *strings.Builder, t *TechniqueReport) {
	if t.Verdicts.Shots == 0 && !groupsHaveVerdicts(t.Groups) {
		b.WriteString("\nClient and server verdicts: no shot carried its client's verdict (projectile weapons, or clients that send none).\n")
		return
	}
	b.WriteString("\nClient and server verdicts, shot by shot (a shotgun's pellets are one shot): refused, the client showed a hit the server did not register; " +
		"granted, the server registered a shot the client showed missing.\n\n")
	b.WriteString("| round trip (ms) | shots | client hits | server hits | refused | refused per client hit | granted | granted per server hit | agreement |\n" +
		"|---|---|---|---|---|---|---|---|---|\n")
	row := func(label string, v *Verdicts) {
		fmt.Fprintf(b, "| %s | %d | %d | %d | %d | %.4f | %d | %.4f | %.4f |\n", label, v.Shots, v.ClientHits, v.ServerHits,
			v.Refused, v.RefusedShare, v.Granted, v.GrantedShare, v.Agreement)
	}
	row(r.subjectsLabel(), &t.Verdicts)
	for _, g := range t.Groups {
		row(num(g.RTTms)+", "+players(g), &g.Verdicts)
	}
}

func groupsHaveVerdicts(groups []GroupFigures) bool {
	for _, g := range groups {
		if g.Verdicts.Shots > 0 {
			return true
		}
	}
	return false
}
