package trace

import (
	"fmt"
	"time"

	"github.com/idem-cli/idem/model"
)

// A text layout several servers share (the combined family's
// $time_local and %t) does not say whether its time is the request's
// start (Apache) or its end (nginx, h2o). Its reader takes the end and
// marks the line (model.Observation.EndOrStart); the other tiers' lines
// of the same trips, joined by request id, say which it was: a proxy's
// line starts just before the server's, so of the two readings (its time
// less its duration, or its time) the one nearer the server's start is
// the file's. A file whose trips say "start" has each marked line moved
// by its duration; one whose trips say nothing, or are split, is left as
// read.

// decideFrom is the shortest duration that tells the readings apart: the
// layout writes whole seconds, so the right reading may stand up to a
// second from the server's start, and the wrong one stands the duration
// less that second away: more than a second only past two.
const decideFrom = 2500 * time.Millisecond

// startVotes counts one file's trips for each reading.
type startVotes struct{ end, start, lines int }

// startOrEnd learns, for each file with marked lines, whether their time
// was the start, and moves them where it was; inputs whose fields are
// explained say which reading was chosen and on what.
func (c *Correlator) startOrEnd(inputs []*model.Input) {
	if !c.endOrStart {
		return
	}
	votes := map[string]*startVotes{}
	nd := int32(c.deliveries.len())
	for di := range nd {
		d := c.deliveries.at(di)
		var server int64 // the server's earliest time in the trip
		for j := d.first; j >= 0; j = c.obs.at(j).next {
			co := c.obs.at(j)
			if co.tier == model.TierServer && co.time != 0 && (server == 0 || co.time < server) {
				server = co.time
			}
		}
		if server == 0 {
			continue
		}
		for j := d.first; j >= 0; j = c.obs.at(j).next {
			co := c.obs.at(j)
			dur := unpackDuration(co.dur)
			if co.flags&flagEndOrStart == 0 || co.time == 0 || dur < decideFrom {
				continue
			}
			file := c.fileOfObs(j)
			v := votes[file]
			if v == nil {
				v = &startVotes{}
				votes[file] = v
			}
			asEnd, asStart := co.time, co.time+int64(dur)
			if absDiff(server, asStart) < absDiff(server, asEnd) {
				v.start++
			} else {
				v.end++
			}
		}
	}
	for j := int32(0); j < int32(c.obs.len()); j++ {
		co := c.obs.at(j)
		if co.flags&flagEndOrStart == 0 {
			continue
		}
		v := votes[c.fileOfObs(j)]
		if v == nil {
			continue
		}
		v.lines++
		if v.start <= v.end {
			continue
		}
		dur := unpackDuration(co.dur)
		if f := c.full(j); f >= 0 {
			o := c.fulls[f]
			dur = o.Duration
			o.Time = o.Time.Add(dur)
		}
		if co.time != 0 {
			co.time += int64(dur)
		}
	}
	for _, in := range inputs {
		v := votes[in.Path]
		if v == nil || len(in.Fields) == 0 {
			continue
		}
		said := false
		for i := range in.Fields {
			if in.Fields[i].Field == "time" {
				in.Fields[i].By += "; " + v.said()
				said = true
			}
		}
		if !said {
			// The layout's time is read by position, which the reader
			// does not list.
			in.Fields = append(in.Fields, model.FieldUse{Field: "time", By: "the combined layout's time: " + v.said(), Lines: v.lines})
		}
	}
}

// said is what the votes chose, as --explain-fields shows it.
func (v *startVotes) said() string {
	n := v.start + v.end
	if v.start > v.end {
		return fmt.Sprintf("the request's start (as Apache's %%t), not its end: %d of %d trips joined to the server's lines say so", v.start, n)
	}
	return fmt.Sprintf("the request's end (as nginx's $time_local), less its duration: %d of %d trips joined to the server's lines say so, or do not say otherwise", v.end, n)
}

// fileOfObs is the file observation j was read from.
func (c *Correlator) fileOfObs(j int32) string {
	if f := c.full(j); f >= 0 {
		return c.fulls[f].Source.File
	}
	file, _ := fileOf(c.sources.list[c.obs.at(j).source][1])
	return file
}

func absDiff(a, b int64) int64 {
	if a > b {
		return a - b
	}
	return b - a
}
