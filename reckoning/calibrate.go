package reckoning

// CalibrateK returns the blend constant K of B = K/η calibrated on
// train, paths held apart from any the result is compared on, with the
// gap and speed it comes from; ok is false when train has no update
// after a first one or no moving frame. The led reckoning study gives K
// no value: its blend time was tuned by hand until predicted paths
// looked and measured close to the recorded ones ([led] section VII-A),
// and blending is there for the eye (it only ever adds error: snapping
// at once would be closer). lagkit's rule for the eye: a blend draws the
// correction no faster than the players move. Dead reckoning at
// threshold eta, of order o, replays the training paths (velocities as
// v says); gap is the mean distance between the true position and the
// last update's trajectory when an update is sent, speed the mean speed
// over the frames where the player moves (above 0.5 m/s), and the blend
// time at eta is gap/speed, so K = eta × gap / speed.
func CalibrateK(train []Sample, eta float64, o Order, v Velocity) (k, gap, speed float64, ok bool) {
	var gapSum, speedSum float64
	var gaps, moving int
	for _, tr := range Tracks(train) {
		if v == Recorded && !allHaveVel(tr.Samples) {
			continue
		}
		snd := Sender{Policy: Dead{Threshold: eta}, Order: o}
		var last State
		for i, sm := range tr.Samples {
			st := PathStateFrom(tr.Samples, i, v)
			if i > 0 {
				if sp := st.Vel.Len(); sp > 0.5 {
					speedSum += sp
					moving++
				}
			}
			if _, due := snd.Step(st, i == 0); due {
				if i > 0 {
					gapSum += sm.Pos.Dist(last.Extrapolate(sm.T, o))
					gaps++
				}
				last = st
			}
		}
	}
	if gaps == 0 || moving == 0 {
		return 0, 0, 0, false
	}
	gap, speed = gapSum/float64(gaps), speedSum/float64(moving)
	return eta * gap / speed, gap, speed, true
}

func allHaveVel(s []Sample) bool {
	for _, x := range s {
		if !x.HasVel {
			return false
		}
	}
	return true
}
